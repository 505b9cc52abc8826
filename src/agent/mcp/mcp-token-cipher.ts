/**
 * AES-256-GCM for MCP OAuth credentials at rest (`src/shared/token-cipher.ts`). The key material is `mcp.token_key` /
 * SANDPIPER_MCP_TOKEN_KEY; earlier keys (`mcp.token_key_previous`) still decrypt.
 */
import { createPurposeCipher, type TokenCipher } from '../../shared/token-cipher.js';

export type { TokenCipher };

const MCP_PURPOSE = {
  label: 'sandpiper-mcp-token-key',
  setting: 'MCP OAuth needs mcp.token_key (or SANDPIPER_MCP_TOKEN_KEY)',
  what: 'MCP credential',
};

export function createTokenCipher(current: string | undefined, previous: readonly string[] = []): TokenCipher {
  return createPurposeCipher(MCP_PURPOSE, current, previous);
}
