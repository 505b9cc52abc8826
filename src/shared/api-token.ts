/** API tokens: generation and the SHA-256 hash that is the only form we store. */
import { createHash, randomBytes } from 'node:crypto';

const PREFIX = 'sp_';

/** A new random token, shown to the user once. */
export function generateApiToken(): string {
  return PREFIX + randomBytes(32).toString('base64url');
}

/** SHA-256 hex of a token, as stored in `api_tokens.token_hash`. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token.trim(), 'utf8').digest('hex');
}
