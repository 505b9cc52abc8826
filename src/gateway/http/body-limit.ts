/**
 * The request-body size limit, decided from `Content-Length` when the request has one, so the body can later be
 * read straight from the Node request (@hono/node-server's fast path) instead of through a Web `Request` stream.
 * Chunked bodies (no length) go through Hono's `bodyLimit`, which counts while streaming.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** Largest accepted request body when none is configured (1 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The decision from the headers alone: 'declared' (a valid Content-Length within the limit), 'streaming' (no length,
 * or chunked: count while reading); throws HTTPException 400 for a bad length and 413 for one over the limit.
 */
export function checkDeclaredLength(
  length: string | undefined,
  transferEncoding: string | undefined,
  maxSize: number,
): 'declared' | 'streaming' {
  if (length === undefined || transferEncoding !== undefined) return 'streaming';
  const bytes = Number(length);
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new HTTPException(400, { message: 'invalid Content-Length' });
  if (bytes > maxSize) throw new HTTPException(413, { message: 'request body too large' });
  return 'declared';
}

export function limitBody(maxSize: number): MiddlewareHandler {
  const streaming = bodyLimit({ maxSize });
  return async (context, next) => {
    const method = context.req.method;
    if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return next();
    const kind = checkDeclaredLength(
      context.req.header('content-length'),
      context.req.header('transfer-encoding'),
      maxSize,
    );
    return kind === 'declared' ? next() : streaming(context, next);
  };
}
