/**
 * AES-256-GCM for credentials at rest (MCP OAuth tokens, Slack bot tokens). The key material is hashed to 32 bytes
 * under a purpose label; each ciphertext names its key by a short id so earlier keys (`*.token_key_previous`) still
 * decrypt. Nothing here names the key or the plaintext in an error.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ConfigError } from './errors.js';

export interface TokenCipher {
  encrypt(plain: string): string;
  /** Throws when no configured key opens the ciphertext (wrong key, tampered row). */
  decrypt(sealed: string): string;
  /** Whether `sealed` was written with the current key (else a rekey rewrites it). */
  isCurrent(sealed: string): boolean;
}

export interface TokenCipherPurpose {
  /** Mixed into the key derivation, so one key material yields different keys per purpose. */
  label: string;
  /** The setting to name when the key is missing, e.g. `mcp.token_key (or SANDPIPER_MCP_TOKEN_KEY)`. */
  setting: string;
  /** What was stored, for the error when no key opens it, e.g. `MCP credential`. */
  what: string;
}

const PREFIX = 'v1';

interface Key {
  id: string;
  bytes: Buffer;
}

function deriveKey(label: string, material: string): Key {
  const bytes = createHash('sha256').update(`${label}:${material}`).digest();
  const id = createHash('sha256').update(bytes).digest('hex').slice(0, 8);
  return { id, bytes };
}

export function createPurposeCipher(
  purpose: TokenCipherPurpose,
  current: string | undefined,
  previous: readonly string[] = [],
): TokenCipher {
  if (current === undefined || current.length < 16) {
    throw new ConfigError([`${purpose.setting} is needed, at least 16 characters`]);
  }
  const key = deriveKey(purpose.label, current);
  const keys = new Map([key, ...previous.map((material) => deriveKey(purpose.label, material))].map((k) => [k.id, k]));
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.bytes, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        PREFIX,
        key.id,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join(':');
    },
    decrypt(sealed) {
      const [prefix, id, iv, tag, body] = sealed.split(':');
      const found = id === undefined ? undefined : keys.get(id);
      if (prefix !== PREFIX || !found || iv === undefined || tag === undefined || body === undefined) {
        throw new ConfigError([`stored ${purpose.what} was written with a key that is not configured`]);
      }
      const decipher = createDecipheriv('aes-256-gcm', found.bytes, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
    isCurrent: (sealed) => sealed.split(':')[1] === key.id,
  };
}
