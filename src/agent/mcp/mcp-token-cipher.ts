/**
 * AES-256-GCM for OAuth credentials at rest. The key material (`mcp.token_key` / SANDPIPER_MCP_TOKEN_KEY) is hashed to
 * 32 bytes; each ciphertext names its key by a short id so earlier keys (`mcp.token_key_previous`) still decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from '../../shared/errors.js';

export interface TokenCipher {
  encrypt(plain: string): string;
  /** Throws when no configured key opens the ciphertext (wrong key, tampered row). */
  decrypt(sealed: string): string;
  /** Whether `sealed` was written with the current key (else a rekey rewrites it). */
  isCurrent(sealed: string): boolean;
}

const PREFIX = 'v1';

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(material: string): Key {
  const bytes = createHash('sha256').update(`sandpiper-mcp-token-key:${material}`).digest();
  const id = createHash('sha256').update(bytes).digest('hex').slice(0, 8);
  return { id, bytes };
}

export function createTokenCipher(current: string | undefined, previous: readonly string[] = []): TokenCipher {
  if (current === undefined || current.length < 16) {
    throw new ConfigError(['MCP OAuth needs mcp.token_key (or SANDPIPER_MCP_TOKEN_KEY), at least 16 characters']);
  }
  const key = deriveKey(current);
  const keys = new Map([key, ...previous.map(deriveKey)].map((k) => [k.id, k]));
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [PREFIX, key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
    },
    decrypt(sealed) {
      const [prefix, id, iv, tag, body] = sealed.split(':');
      const found = id === undefined ? undefined : keys.get(id);
      if (prefix !== PREFIX || !found || iv === undefined || tag === undefined || body === undefined) {
        throw new ConfigError(['stored MCP credential was written with a key that is not configured']);
      }
      const decipher = createDecipheriv('aes-256-gcm', found.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    isCurrent: (sealed) => sealed.split(':')[1] === key.id,
  };
}
