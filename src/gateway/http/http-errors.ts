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

/**
 * A route-level error with an HTTP status and a user-safe message. It is an answer, not a fault: it is never logged,
 * so it carries no stack trace (capturing one was 5 % of the notify route's CPU on a 404, `bench:notify --profile`).
 */
export class HttpError extends GatewayError {
  readonly status: ContentfulStatusCode;
  constructor(status: ContentfulStatusCode, message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(
        status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST',
        message,
      );
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.status = status;
  }
}

/** The status and JSON body for an error thrown while serving a request (the error handler of the Hono app). */
export function errorAnswer(
  error: unknown,
  logger: Logger,
  path: string,
): { status: ContentfulStatusCode; body: { error: string } } {
  if (error instanceof HttpError) return { status: error.status, body: { error: error.message } };
  if (error instanceof HTTPException) {
    const status = error.status as ContentfulStatusCode;
    return { status, body: { error: status === 413 ? 'request body too large' : error.message || 'request failed' } };
  }
  if (error instanceof GatewayError) {
    const status = STATUS_BY_CODE[error.code];
    if (status !== undefined) return { status, body: { error: error.message } };
  }
  logger.error({ err: error, path }, 'http.internal_error');
  return { status: 500, body: { error: 'internal error' } };
}

export function createErrorHandler(logger: Logger) {
  return (error: Error, context: Context): Response => {
    const { status, body } = errorAnswer(error, logger, context.req.path);
    return context.json(body, status);
  };
}
