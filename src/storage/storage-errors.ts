/** Maps driver errors to StorageError: driver code kept, URLs and credentials stripped. */
import { GatewayError, StorageError } from '../shared/errors.js';

interface DriverErrorShape {
  code?: unknown;
  errno?: unknown;
  message?: unknown;
}

function driverCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as DriverErrorShape).code;
  return typeof code === 'string' || typeof code === 'number' ? String(code) : undefined;
}

/** True for a unique/primary-key violation on SQLite or PostgreSQL. */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverCode(error);
  if (code === '23505') return true;
  if (code === 'SQLITE_CONSTRAINT' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const message = (error as DriverErrorShape).message;
    return typeof message === 'string' && /UNIQUE|PRIMARY KEY/i.test(message);
  }
  return false;
}

/** True when SQLite gave up waiting for a lock. */
export function isBusyError(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/**
 * A stand-in for a driver error that is safe to log: its code and stack frames, not its message. knex
 * prefixes driver messages with the SQL and the bound values (message text, names, token hashes), and
 * loggers print the whole cause chain.
 */
function redactedDriverError(error: unknown, code: string | undefined): Error {
  const redacted = new Error(code === undefined ? 'driver error' : `driver error ${code}`);
  const stack = error instanceof Error ? error.stack : undefined;
  const frames = stack === undefined ? [] : stack.split('\n').filter((line) => /^\s+at /.test(line));
  redacted.stack = [`Error: ${redacted.message}`, ...frames].join('\n');
  return code === undefined ? redacted : Object.assign(redacted, { code });
}

/**
 * Wraps any non-GatewayError as StorageError. The message names the operation and the driver's error code
 * only, and the cause is redacted: driver messages can contain connection strings, SQL with user text, or
 * passwords.
 */
export function toStorageError(error: unknown, operation: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = driverCode(error);
  const cause = redactedDriverError(error, code);
  if (isUniqueViolation(error)) {
    return new StorageError('CONFLICT', `${operation}: already exists`, { cause });
  }
  const suffix = code === undefined ? '' : ` (${code})`;
  return new StorageError('STORAGE_ERROR', `${operation} failed${suffix}`, {
    cause,
    retryable: isBusyError(error),
    ...(code === undefined ? {} : { data: { driverCode: code } }),
  });
}

/** A CONFLICT for a unique violation the store reports in its own words; the driver error is redacted. */
export function conflictError(message: string, error: unknown): StorageError {
  return new StorageError('CONFLICT', message, { cause: redactedDriverError(error, driverCode(error)) });
}

/** Runs a store operation, converting driver failures with toStorageError. */
export async function guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toStorageError(error, operation);
  }
}
