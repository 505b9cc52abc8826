/** Identifier generators. */
import { randomFillSync, randomUUID } from 'node:crypto';

/**
 * Random bytes are drawn from a pool refilled 4 KiB at a time (as `randomUUID` does for its own ids): one system
 * call per 256 ids instead of one each, on every message's path. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let offset = 0;

/** 32 lowercase hex characters by default (workstream ids, approval ids). */
export function newHexId(bytes = 16): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('hex');
  if (offset + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return id;
}

export function newUuid(): string {
  return randomUUID();
}
