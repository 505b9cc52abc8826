/**
 * Downloads one attachment with the platform's credentials, only from the platform's own file hosts (ADR 0017):
 * every URL and every redirect hop is checked against `access.origins` before a request is made, so the credentials
 * (the Slack bot token) never leave those origins. The size limit holds for the declared size, Content-Length and
 * the bytes actually read.
 */
import type { AttachmentAccess, InboundAttachment } from '../../channels/channel-adapter.js';
import { withLinkedSignal } from '../../shared/abort.js';
import { err, ok, type Result } from '../../shared/result.js';

const MAX_REDIRECTS = 3;
const DOWNLOAD_TIMEOUT_MS = 60_000;

export interface Downloaded {
  bytes: Buffer;
  /** The content type the file host answered with (lower-cased, without parameters); '' when none. */
  contentType: string;
}

export interface DownloadLimits {
  maxBytes: number;
  signal: AbortSignal;
  timeoutMs?: number;
}

/** Why a download was refused, in words for the user (no URL, no header, no token). */
export type DownloadProblem = string;

export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Whether `url` is on one of the allowed origins. */
export function isAllowedOrigin(url: URL, origins: readonly string[]): boolean {
  return origins.includes(url.origin);
}

function parseUrl(raw: string, base?: string): URL | undefined {
  try {
    return new URL(raw, base);
  } catch {
    return undefined;
  }
}

function tooLarge(bytes: number, maxBytes: number): DownloadProblem {
  return `too large (${megabytes(bytes)}; the limit is ${megabytes(maxBytes)})`;
}

/** Fetches without following redirects: each hop is checked by the caller. */
async function fetchHop(url: URL, access: AttachmentAccess, signal: AbortSignal): Promise<Response> {
  return fetch(url, { headers: { ...access.headers }, redirect: 'manual', signal });
}

/** Reads the body, stopping (and cancelling the stream) as soon as it exceeds `maxBytes`. */
async function readLimited(response: Response, maxBytes: number): Promise<Result<Buffer, DownloadProblem>> {
  const reader = response.body?.getReader();
  if (!reader) return ok(Buffer.alloc(0));
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Releasing the connection is best effort: the file is refused as too large either way.
      await reader.cancel().catch(() => undefined);
      return err(tooLarge(total, maxBytes));
    }
    chunks.push(value);
  }
  return ok(Buffer.concat(chunks));
}

/** Follows at most MAX_REDIRECTS redirects, each to an allowed origin; resolves with the final answer. */
async function fetchAllowed(
  start: URL,
  access: AttachmentAccess,
  signal: AbortSignal,
): Promise<Result<Response, DownloadProblem>> {
  let url = start;
  for (let hop = 0; ; hop++) {
    const response = await fetchHop(url, access, signal);
    if (response.status < 300 || response.status >= 400) return ok(response);
    // A redirect's body is never read; cancelling it only frees the connection (best effort).
    await response.body?.cancel().catch(() => undefined);
    const next = parseUrl(response.headers.get('location') ?? '', url.href);
    if (!next) return err(`the file host answered with a redirect (HTTP ${response.status}) and no valid address`);
    if (!isAllowedOrigin(next, access.origins))
      return err(`the file host redirected to another host (${next.host}); not followed`);
    if (hop + 1 >= MAX_REDIRECTS) return err('the file host redirected too many times');
    url = next;
  }
}

function contentTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

async function download(
  url: URL,
  access: AttachmentAccess,
  limits: DownloadLimits,
  signal: AbortSignal,
): Promise<Result<Downloaded, DownloadProblem>> {
  const answered = await fetchAllowed(url, access, signal);
  if (!answered.ok) return answered;
  const response = answered.value;
  if (!response.ok) {
    // The body of a refusal is not read: cancelling it only frees the connection; the status is what is reported.
    await response.body?.cancel().catch(() => undefined);
    return err(`the file host answered HTTP ${response.status}`);
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(length) && length > limits.maxBytes) {
    // Too large by its announced length: the body is not read; cancelling only frees the connection.
    await response.body?.cancel().catch(() => undefined);
    return err(tooLarge(length, limits.maxBytes));
  }
  const body = await readLimited(response, limits.maxBytes);
  return body.ok ? ok({ bytes: body.value, contentType: contentTypeOf(response) }) : body;
}

/** Downloads `attachment`, or says in plain words why not. Throws only when `limits.signal` is aborted. */
export async function downloadAttachment(
  attachment: InboundAttachment,
  access: AttachmentAccess,
  limits: DownloadLimits,
): Promise<Result<Downloaded, DownloadProblem>> {
  if (attachment.size !== undefined && attachment.size > limits.maxBytes)
    return err(tooLarge(attachment.size, limits.maxBytes));
  const url = parseUrl(attachment.url);
  if (!url) return err('the platform gave no download address for it');
  if (!isAllowedOrigin(url, access.origins))
    return err(`it is not hosted by the platform (${url.host}); not downloaded`);
  try {
    return await withLinkedSignal(limits.signal, (signal) => download(url, access, limits, signal), {
      timeoutMs: limits.timeoutMs ?? DOWNLOAD_TIMEOUT_MS,
    });
  } catch (error) {
    limits.signal.throwIfAborted();
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return err(timedOut ? 'the download took too long' : 'the download failed (the file host could not be reached)');
  }
}
