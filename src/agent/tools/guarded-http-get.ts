/** An HTTP(S) GET that follows redirects by hand and checks every hop's addresses against an address policy. */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { err, ok, type Result } from '../../shared/result.js';
import { checkLiteralHost, guardedLookup, type AddressPolicy } from './ssrf-guard.js';

export interface GuardedGetOptions {
  policy: AddressPolicy;
  signal: AbortSignal;
  /** Bytes of (decoded) body kept; the rest is dropped and `truncated` set. */
  maxBytes: number;
  maxRedirects?: number;
  userAgent?: string;
}

export interface GuardedResponse {
  /** The final URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  truncated: boolean;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Checks a URL before any connection: scheme and IP-literal hosts. Returns the refusal text, if any. */
export function checkUrl(rawUrl: string, policy: AddressPolicy): Result<URL> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return err(`Invalid URL: ${rawUrl.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return err(`URL must start with http:// or https:// (got '${url.protocol}')`);
  if (url.hostname === '') return err('Invalid URL: no hostname');
  const blocked = checkLiteralHost(url.hostname, policy);
  return blocked === undefined ? ok(url) : err(blocked);
}

/** GETs a URL; refusals and network failures are error values with model-readable text. */
export async function guardedGet(rawUrl: string, options: GuardedGetOptions): Promise<Result<GuardedResponse>> {
  let current = rawUrl;
  for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
    const checked = checkUrl(current, options.policy);
    if (!checked.ok) return hop === 0 ? checked : err(`Redirect refused: ${checked.error}`);
    const response = await requestOnce(checked.value, options);
    if (!response.ok) return response;
    const { status, location } = response.value;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) return ok(response.value.result);
    current = new URL(location, checked.value).toString();
  }
  return err(`Fetch failed: more than ${options.maxRedirects ?? 5} redirects`);
}

interface HopOutcome {
  status: number;
  location: string | undefined;
  result: GuardedResponse;
}

function requestOnce(url: URL, options: GuardedGetOptions): Promise<Result<HopOutcome>> {
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(url, {
      method: 'GET',
      lookup: guardedLookup(options.policy),
      signal: options.signal,
      headers: {
        'user-agent': options.userAgent ?? 'sandpiper/0.1',
        accept: 'text/html, text/plain, application/json, */*;q=0.5',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (options.signal.aborted) resolve(err(abortText(options.signal)));
      else if (error.code === 'ESSRFBLOCKED') resolve(err(error.message));
      else resolve(err(`Fetch failed: ${error.code ?? error.message}`));
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(status) && location !== undefined) {
        response.resume();
        resolve(ok({ status, location, result: emptyResult(url, status) }));
        return;
      }
      if (status < 200 || status >= 300) {
        response.resume();
        resolve(err(`Fetch failed: HTTP ${status}`));
        return;
      }
      readBody(decode(response), options.maxBytes).then(
        ({ body, truncated }) => {
          if (truncated) response.destroy();
          resolve(
            ok({
              status,
              location: undefined,
              result: {
                url: url.toString(),
                status,
                contentType: String(response.headers['content-type'] ?? ''),
                body,
                truncated,
              },
            }),
          );
        },
        () =>
          resolve(
            err(options.signal.aborted ? abortText(options.signal) : 'Fetch failed: the response could not be read'),
          ),
      );
    });
    request.end();
  });
}

function abortText(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'TimeoutError' ? 'Fetch failed: timed out' : 'Fetch cancelled';
}

function emptyResult(url: URL, status: number): GuardedResponse {
  return { url: url.toString(), status, contentType: '', body: Buffer.alloc(0), truncated: false };
}

function decode(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

/** Reads at most `maxBytes`, then stops reading (the connection is dropped). */
async function readBody(stream: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    if (size + buffer.length > maxBytes) {
      chunks.push(buffer.subarray(0, maxBytes - size));
      stream.destroy();
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(buffer);
    size += buffer.length;
  }
  return { body: Buffer.concat(chunks), truncated: false };
}
