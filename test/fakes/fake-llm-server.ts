/** A scripted fake LLM server speaking OpenAI Chat Completions and Anthropic Messages streaming on 127.0.0.1. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  anthropicFrames,
  encodeFrame,
  errorBody,
  openAiFrames,
  type ScriptedResponse,
  type SseFrame,
} from './fake-llm-sse.js';
import { waitFor } from '../helpers/wait-for.js';

export type { ScriptedFinish, ScriptedResponse, ScriptedToolCall } from './fake-llm-sse.js';

export type FakeVendor = 'openai' | 'anthropic';

/** One request the fake received. */
export interface RecordedRequest {
  vendor: FakeVendor;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined if it was not JSON). */
  body: unknown;
  /** The scripted response it consumed (undefined when the queue was empty). */
  script: ScriptedResponse | undefined;
  /** True once the response completed normally. */
  finished: boolean;
  /** True if the client closed the connection before the response completed. */
  clientClosed: boolean;
}

export interface FakeLlmServer {
  /** Base URL for the OpenAI SDK (`${origin}/v1`). */
  readonly url: string;
  /** Origin (`http://127.0.0.1:PORT`): base URL for the Anthropic SDK. */
  readonly origin: string;
  /** Every request received, in arrival order. */
  readonly requests: readonly RecordedRequest[];
  /** Scripted responses not consumed yet. */
  readonly pending: number;
  /** Appends scripted responses; each request consumes one, in order. */
  enqueue(...responses: ScriptedResponse[]): void;
  /** Scripts the answer from the request body when the queue is empty (tests with many concurrent turns). */
  fallback: ((body: unknown) => ScriptedResponse) | undefined;
  /** Resolves once `predicate` returns a truthy value (polled); rejects after `timeoutMs`. */
  waitFor<T>(predicate: (fake: FakeLlmServer) => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  /** Closes open streams and the server. */
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  /** If set, requests without this key (x-api-key or Bearer) get a 401. */
  apiKey?: string;
  /** Model ids `GET /models` lists (default `['gpt-fake']`). */
  models?: string[];
}

const EMPTY_QUEUE_MESSAGE = 'fake-llm: no scripted response left for this request (test under-scripted)';

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function field(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[key] : undefined;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function presentedKey(req: IncomingMessage): string | undefined {
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return header;
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') === true ? auth.slice('Bearer '.length) : undefined;
}

function vendorOf(path: string): FakeVendor | undefined {
  if (path === '/v1/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  return undefined;
}

function wait(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function sendError(res: ServerResponse, vendor: FakeVendor, script: ScriptedResponse, status: number): void {
  const headers: Record<string, string> = {};
  if (script.retryAfter !== undefined) headers['retry-after'] = String(script.retryAfter);
  if (script.retryAfterMs !== undefined) headers['retry-after-ms'] = String(script.retryAfterMs);
  const fields = {
    ...(script.errorType === undefined ? {} : { type: script.errorType }),
    ...(script.errorCode === undefined ? {} : { code: script.errorCode }),
    ...(script.errorParam === undefined ? {} : { param: script.errorParam }),
  };
  sendJson(res, status, errorBody(vendor, status, script.errorMessage ?? `fake error ${status}`, fields), headers);
}

/** Writes the frames with per-frame delays; stops early if the client went away. */
async function writeFrames(res: ServerResponse, frames: readonly SseFrame[], delayMs: number): Promise<boolean> {
  for (const frame of frames) {
    await wait(delayMs);
    if (res.destroyed || res.writableEnded) return false;
    res.write(encodeFrame(frame));
  }
  return true;
}

/** Starts a fake LLM server on 127.0.0.1 with an ephemeral port. */
export async function startFakeLlmServer(options: FakeLlmOptions = {}): Promise<FakeLlmServer> {
  const queue: ScriptedResponse[] = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let seq = 0;

  async function stream(res: ServerResponse, record: RecordedRequest, script: ScriptedResponse): Promise<void> {
    const model =
      typeof field(record.body, 'model') === 'string' ? (field(record.body, 'model') as string) : 'fake-model';
    const n = ++seq;
    const built =
      record.vendor === 'openai'
        ? openAiFrames(script, n, model, field(field(record.body, 'stream_options'), 'include_usage') === true)
        : anthropicFrames(script, n, model);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    res.flushHeaders();
    const partial = script.hang === true || script.breakAfterText === true;
    const end = script.hangAfterStop === true ? built.stopFrames : partial ? built.textFrames : built.frames.length;
    const completed = await writeFrames(res, built.frames.slice(0, end), script.delayMs ?? 0);
    if (!completed) return;
    if (script.hangAfterStop === true) return;
    if (script.breakAfterText === true) {
      await wait(20);
      res.socket?.destroy();
      return;
    }
    if (script.hang === true) return;
    res.end();
    record.finished = true;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = await readBody(req);
    const vendor = vendorOf(path);
    if (req.method === 'GET' && path.endsWith('/models')) {
      // The model listing (OpenAI GET /v1/models, Anthropic GET /v1/models), as `sandpiper doctor` calls it.
      const refused = options.apiKey !== undefined && presentedKey(req) !== options.apiKey;
      sendJson(
        res,
        refused ? 401 : 200,
        refused
          ? { error: { message: 'fake-llm: invalid API key' } }
          : { object: 'list', data: (options.models ?? ['gpt-fake']).map((id) => ({ id, object: 'model' })) },
      );
      return;
    }
    if (req.method !== 'POST' || vendor === undefined) {
      sendJson(res, 404, { error: { message: `fake-llm: no route ${req.method ?? ''} ${path}` } });
      return;
    }
    const body = parseJson(text);
    const script = queue.shift() ?? fake.fallback?.(body);
    const record: RecordedRequest = {
      vendor,
      method: req.method,
      path,
      headers: { ...req.headers },
      body,
      script,
      finished: false,
      clientClosed: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!record.finished) record.clientClosed = true;
    });
    if (options.apiKey !== undefined && presentedKey(req) !== options.apiKey) {
      sendError(res, vendor, { errorMessage: 'fake-llm: invalid API key' }, 401);
      return;
    }
    if (script === undefined) {
      sendJson(res, 500, errorBody(vendor, 500, EMPTY_QUEUE_MESSAGE));
      return;
    }
    if (script.hangBeforeHeaders === true) return;
    if (script.status !== undefined && script.status >= 400) {
      sendError(res, vendor, script, script.status);
      return;
    }
    await stream(res, record, script);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: 'fake-llm: internal failure' } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const fake: FakeLlmServer = {
    url: `${origin}/v1`,
    origin,
    requests,
    get pending() {
      return queue.length;
    },
    enqueue(...responses) {
      queue.push(...responses);
    },
    fallback: undefined,
    waitFor(predicate, timeoutMs = 10_000) {
      return waitFor(() => predicate(fake), 'fake-llm: condition', timeoutMs);
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
