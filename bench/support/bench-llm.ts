/**
 * The benchmarks' LLM: an OpenAI Chat Completions streaming endpoint on 127.0.0.1 that answers every request
 * with the same fixed stream (DELTAS tokens, DELTA_MS apart, then usage). It records, per `bench-<key>` marker in
 * the last user message, when the request arrived and when its last token was written (performance.now()).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export const DELTAS = 30;
export const DELTA_MS = 10;

/** The text every answer to `key` consists of (so the bench can recognise its final edit). */
export function answerFor(key: string): string {
  return Array.from({ length: DELTAS }, (_, i) => `a${key}-${i}`).join(' ');
}

export interface BenchLlm {
  url: string;
  /** key → arrival time of the (first) request. */
  readonly requestAt: Map<string, number>;
  /** key → time the last token was written. */
  readonly lastTokenAt: Map<string, number>;
  /** The first request body received (the template the bare bot replays). */
  firstBody: unknown;
  reset(): void;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export async function startBenchLlm(): Promise<BenchLlm> {
  const sockets = new Set<Socket>();
  const state: BenchLlm = {
    url: '',
    requestAt: new Map(),
    lastTokenAt: new Map(),
    firstBody: undefined,
    reset() {
      state.requestAt.clear();
      state.lastTokenAt.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => void serve(req, res));
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrived = performance.now();
    const text = await readBody(req);
    const key = /bench-(w?\d+-\d+)/.exec(text.slice(text.lastIndexOf('"role":"user"')))?.[1] ?? 'unknown';
    if (!state.requestAt.has(key)) state.requestAt.set(key, arrived);
    state.firstBody ??= JSON.parse(text) as unknown;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant', content: '' }));
    const words = answerFor(key).split(' ');
    for (const [i, word] of words.entries()) {
      await new Promise((resolve) => setTimeout(resolve, DELTA_MS));
      res.write(chunk({ content: i === 0 ? word : ` ${word}` }));
    }
    state.lastTokenAt.set(key, performance.now());
    res.write(chunk({}, 'stop'));
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'bench', choices: [], usage: { prompt_tokens: 900, completion_tokens: DELTAS, total_tokens: 900 + DELTAS } })}\n\n`,
    );
    res.end('data: [DONE]\n\n');
  }
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}
