/**
 * A durable write of a turn failed (a commit point of docs/design/durability.md, or a history append). The turn ends
 * with a note in the thread: a user is never left believing the conversation holds what it does not.
 */
import { GatewayError } from '../../shared/errors.js';

export class DurableWriteError extends GatewayError {
  constructor(
    /** What could not be stored, in a user's words ("your message", "the answer"). */
    readonly what: string,
    cause: unknown,
  ) {
    super('STORAGE_ERROR', `storing ${what} failed`, { cause });
  }
}

export function isDurableWriteError(error: unknown): error is DurableWriteError {
  return error instanceof DurableWriteError;
}

/** The note a thread gets when a turn ended because something could not be stored. */
export function durableWriteNote(error: DurableWriteError): string {
  return `This turn stopped: ${error.what} could not be saved, so the conversation would not remember it. Please try again; the details are in the server logs.`;
}
