/**
 * A hot JSON POST route served straight from Node's (req, res), in front of Hono (ADR 0025 update): no Web Request
 * or Response objects, no framework context or middleware chain. It reuses the app's pieces (body-limit decision,
 * error mapping, metrics histogram) and the route's own handler, so both paths answer alike. Anything it is not sure
 * of (another path or method, a query string, a chunked body) it leaves to Hono by returning false.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../shared/logger.js';
import { checkDeclaredLength } from './body-limit.js';
import { errorAnswer } from './http-errors.js';
import type { HttpMetrics } from './metrics.js';

/** What a fast route answers: a JSON body, a status (default 200) and extra headers. */
export interface FastAnswer {
  status?: number;
  body: unknown;
  headers?: Readonly<Record<string, string>>;
}

export interface FastRouteSpec {
  method: 'POST';
  path: string;
  /** Reads the request's headers and body text; throws like a Hono route (HttpError, GatewayError, ...). */
  handle: (headers: IncomingMessage['headers'], body: string) => Promise<FastAnswer>;
}

export interface FastRouteDeps {
  logger: Logger;
  metrics: HttpMetrics;
  maxBodyBytes: number;
}

/** Returns true when it took the request (answered or will answer it); false leaves it to the next listener. */
export type FastRequestListener = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Decodes like the Web `Request.text()` Hono uses (UTF-8, leading BOM dropped, invalid bytes replaced). */
const decoder = new TextDecoder();

export function createFastRoute(spec: FastRouteSpec, deps: FastRouteDeps): FastRequestListener {
  return (req, res) => {
    if (req.url !== spec.path || req.method !== spec.method) return false;
    const started = performance.now();
    const finish = (answer: FastAnswer): void => {
      const status = answer.status ?? 200;
      writeJson(res, status, answer.body, answer.headers);
      deps.metrics.requestDuration.observe({ method: spec.method, route: spec.path, status: String(status) }, (performance.now() - started) / 1000);
    };
    const fail = (error: unknown): void => finish(errorAnswer(error, deps.logger, spec.path));
    try {
      if (checkDeclaredLength(req.headers['content-length'], req.headers['transfer-encoding'], deps.maxBodyBytes) === 'streaming') return false;
    } catch (error) {
      fail(error);
      req.resume();
      return true;
    }
    readBody(req, (body) => {
      spec.handle(req.headers, decoder.decode(body)).then(finish, fail);
    });
    return true;
  };
}

/** Collects a body whose length Node's parser already bounds by the declared Content-Length. */
function readBody(req: IncomingMessage, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
  // A client gone mid-body: nothing to answer, nothing was accepted.
  req.once('error', () => req.destroy());
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> | undefined): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
