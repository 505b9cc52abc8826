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
 * Wraps any non-GatewayError as StorageError. The message names the operation and the driver's error code
 * only: driver messages can contain connection strings, SQL with user text, or passwords.
 */
export function toStorageError(error: unknown, operation: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = driverCode(error);
  if (isUniqueViolation(error)) {
    return new StorageError('CONFLICT', `${operation}: already exists`, { cause: error });
  }
  const suffix = code === undefined ? '' : ` (${code})`;
  return new StorageError('STORAGE_ERROR', `${operation} failed${suffix}`, {
    cause: error,
    retryable: isBusyError(error),
    ...(code === undefined ? {} : { data: { driverCode: code } }),
  });
}

/** Runs a store operation, converting driver failures with toStorageError. */
export async function guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw toStorageError(error, operation);
  }
}
