/** Identifier generators. */
import { randomBytes, randomUUID } from 'node:crypto';

/** 32 lowercase hex characters (workstream ids, approval ids). */
export function newHexId(bytes = 16): string {
  return randomBytes(bytes).toString('hex');
}

export function newUuid(): string {
  return randomUUID();
}
