/** Maps any error thrown in a route to a JSON answer: known codes to their status, everything else to 500. */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { GatewayError, type ErrorCode } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

const STATUS_BY_CODE: Partial<Record<ErrorCode, ContentfulStatusCode>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  TIMEOUT: 504,
};

/** A route-level error with an HTTP status and a user-safe message. */
export class HttpError extends GatewayError {
  readonly status: ContentfulStatusCode;
  constructor(status: ContentfulStatusCode, message: string) {
    super(status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', message);
    this.status = status;
  }
}

export function createErrorHandler(logger: Logger) {
  return (error: Error, context: Context): Response => {
    if (error instanceof HttpError) return context.json({ error: error.message }, error.status);
    if (error instanceof HTTPException) {
      const status = error.status as ContentfulStatusCode;
      return context.json({ error: status === 413 ? 'request body too large' : error.message || 'request failed' }, status);
    }
    if (error instanceof GatewayError) {
      const status = STATUS_BY_CODE[error.code];
      if (status !== undefined) return context.json({ error: error.message }, status);
    }
    logger.error({ err: error, path: context.req.path }, 'http.internal_error');
    return context.json({ error: 'internal error' }, 500);
  };
}
