/** The `web_fetch` tool: fetches a public page (SSRF-guarded), converts HTML to text, and answers a question from it. */
import { describeError } from '../../../shared/errors.js';
import { checkUrl, guardedGet } from '../guarded-http-get.js';
import { allowAllAddressPolicy, publicAddressPolicy, type AddressPolicy } from '../ssrf-guard.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export interface WebFetchHandlerOptions {
  /** Lets the tool reach loopback/private addresses. Tests only. */
  allowPrivateAddresses?: boolean;
  /** Overrides the address policy entirely (tests that allow exactly their local server). */
  addressPolicy?: AddressPolicy;
  /** Bytes of body read at most (default 5 MiB). */
  maxBytes?: number;
  /** Time limit when the context has none (default 30 s). */
  defaultTimeoutMs?: number;
}

/** Page text sent to the model is cut to this many characters (head and tail kept). */
const MAX_PAGE_CHARS = 50_000;

function readArgs(args: Record<string, unknown>): { url: string; question: string } {
  const text = (key: string): string => (typeof args[key] === 'string' ? args[key].trim() : '');
  return { url: text('url'), question: text('question') || text('prompt') };
}

function failure(header: string, error: string): ToolPreparation {
  return { header: `✗ web_fetch: ${header}`, preview: '', needsApproval: false, approvalLabel: 'web_fetch', error };
}

function prepare(args: Record<string, unknown>, policy: AddressPolicy): ToolPreparation {
  const { url, question } = readArgs(args);
  if (url === '') return failure('no URL', 'Error: no URL provided');
  if (!/^https?:\/\//i.test(url))
    return failure('bad scheme', `Error: URL must start with http:// or https:// (got '${url.slice(0, 80)}')`);
  const checked = checkUrl(url, policy);
  if (!checked.ok) {
    return failure(
      checked.error.startsWith('Blocked') ? 'blocked (private network)' : 'invalid URL',
      `Error: ${checked.error}`,
    );
  }
  const preview = question === '' ? url : `${url}\nQ: ${question.slice(0, 200)}`;
  return { header: `⚙ web_fetch: ${url.slice(0, 80)}`, preview, needsApproval: true, approvalLabel: 'web_fetch' };
}

/**
 * Plain text of a response body: HTML converted (html-to-text, loaded at the first page, not at start: about 11 MB of
 * memory a gateway that never fetches does not hold), other text as is.
 */
export async function bodyToText(body: Buffer, contentType: string): Promise<string | undefined> {
  const type = contentType.toLowerCase();
  const charset = /charset=([^;]+)/.exec(type)?.[1]?.trim().replace(/"/g, '');
  let decoded: string;
  try {
    decoded = new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    decoded = body.toString('utf8');
  }
  const looksHtml = type.includes('html') || (type === '' && /^\s*(<!doctype html|<html)/i.test(decoded));
  if (looksHtml) {
    const { convert } = await import('html-to-text');
    const text = convert(decoded, {
      wordwrap: false,
      selectors: [
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
        { selector: 'script', format: 'skip' },
        { selector: 'style', format: 'skip' },
        { selector: 'nav', format: 'skip' },
      ],
    });
    return text
      .replace(/[ \t]+/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }
  const isText = type === '' || type.startsWith('text/') || /json|xml|javascript|yaml|csv/.test(type);
  return isText ? decoded.trim() : undefined;
}

function clipPage(text: string): string {
  if (text.length <= MAX_PAGE_CHARS) return text;
  const half = MAX_PAGE_CHARS / 2;
  return `${text.slice(0, half)}\n\n... [${text.length - MAX_PAGE_CHARS} chars omitted] ...\n\n${text.slice(-half)}`;
}

function extractionPrompt(url: string, text: string, question: string): string {
  return [
    'Answer the question using only the web page below. Be concise and specific.',
    'If the page does not contain the answer, say so plainly instead of guessing.',
    '',
    `Page URL: ${url}`,
    `Page content (${text.length} chars):`,
    text,
    '---',
    `Question: ${question}`,
  ].join('\n');
}

async function execute(
  args: Record<string, unknown>,
  context: ToolContext,
  options: WebFetchHandlerOptions,
  policy: AddressPolicy,
): Promise<ToolResult> {
  const prepared = prepare(args, policy);
  if (prepared.error !== undefined) return { output: prepared.error, isError: true };
  const { url, question } = readArgs(args);
  const timeoutMs = context.timeoutMs > 0 ? context.timeoutMs : (options.defaultTimeoutMs ?? 30_000);
  const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
  const fetched = await guardedGet(url, { policy, signal, maxBytes: options.maxBytes ?? 5 * 1024 * 1024 });
  context.signal.throwIfAborted();
  if (!fetched.ok)
    return { output: fetched.error.startsWith('Blocked') ? `Error: ${fetched.error}` : fetched.error, isError: true };
  const text = await bodyToText(fetched.value.body, fetched.value.contentType);
  if (text === undefined)
    return {
      output: `Fetch failed: unsupported content type '${fetched.value.contentType.slice(0, 80)}'`,
      isError: true,
    };
  if (text === '') return { output: '(empty response from URL)', isError: false };
  const page = clipPage(text) + (fetched.value.truncated ? '\n[page cut at the download size limit]' : '');
  if (question === '') return { output: page, isError: false };
  if (context.askModel === undefined) {
    return { output: `(no model available to answer the question; page text follows)\n${page}`, isError: false };
  }
  try {
    const answer = await context.askModel(extractionPrompt(fetched.value.url, page, question), context.signal);
    return { output: answer.trim() === '' ? '(no answer)' : answer.trim(), isError: false };
  } catch (error) {
    context.signal.throwIfAborted();
    return {
      output: `Extraction failed (page was fetched but summarization errored): ${describeError(error)}`,
      isError: true,
    };
  }
}

/** Creates the `web_fetch` handler; the default policy refuses every non-public address. */
export function createWebFetchHandler(options: WebFetchHandlerOptions = {}): ToolHandler {
  const policy =
    options.addressPolicy ?? (options.allowPrivateAddresses === true ? allowAllAddressPolicy : publicAddressPolicy);
  return {
    name: 'web_fetch',
    prepare: (args) => prepare(args, policy),
    execute: (args, context) => execute(args, context, options, policy),
  };
}

/** Handler of the `web_fetch` tool with the public-addresses-only policy. */
export const webFetchHandler: ToolHandler = createWebFetchHandler();
