/**
 * `doctor` for per-user MCP OAuth: `gateway.public_url` is set and sensible, `mcp.token_key` is set, and the callback
 * `<public_url>/v1/oauth/callback` answers as Sandpiper's (a running gateway refuses a request without a state with 400).
 */
import type { Config } from '../config/index.js';
import { fail, ok, probe, skip, warn, type CheckResult } from './doctor-check.js';

const NAME = 'mcp oauth';

function isLocal(host: string): boolean {
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
}

export interface McpOAuthCheckConfig {
  gateway: Pick<Config['gateway'], 'public_url'>;
  mcp: Pick<Config['mcp'], 'servers' | 'token_key' | 'token_key_previous'>;
}

export async function checkMcpOAuth(config: McpOAuthCheckConfig): Promise<CheckResult[]> {
  const servers = Object.entries(config.mcp.servers)
    .filter(([, server]) => server.auth === 'oauth')
    .map(([name]) => name);
  if (servers.length === 0) return [skip(NAME, 'no MCP server uses auth = "oauth"')];
  const results: CheckResult[] = [];
  if (config.mcp.token_key === undefined) {
    results.push(
      fail(
        `${NAME} token key`,
        'mcp.token_key is not set',
        'set mcp.token_key or SANDPIPER_MCP_TOKEN_KEY (openssl rand -base64 32)',
      ),
    );
  } else {
    results.push(ok(`${NAME} token key`, `set (${config.mcp.token_key_previous.length} previous key(s))`));
  }
  const publicUrl = config.gateway.public_url;
  if (publicUrl === undefined) {
    return [
      ...results,
      fail(
        `${NAME} public_url`,
        'gateway.public_url is not set',
        'set gateway.public_url to the address browsers reach this gateway at',
      ),
    ];
  }
  const parsed = new URL(publicUrl);
  if (parsed.protocol !== 'https:' && !isLocal(parsed.hostname)) {
    results.push(
      warn(
        `${NAME} public_url`,
        `${publicUrl} is not https`,
        'authorization servers expect an https redirect URI; put the gateway behind TLS',
      ),
    );
  } else {
    results.push(ok(`${NAME} public_url`, publicUrl));
  }
  results.push(await checkCallback(`${publicUrl.replace(/\/+$/, '')}/v1/oauth/callback`));
  return results;
}

async function checkCallback(callbackUrl: string): Promise<CheckResult> {
  const name = `${NAME} callback`;
  const answer = await probe(callbackUrl, { method: 'GET' });
  if ('error' in answer) {
    return warn(
      name,
      `${callbackUrl} not reachable from here (${answer.error})`,
      'start the gateway, and make public_url reach its HTTP listener (proxy, DNS)',
    );
  }
  if (answer.status === 400 && typeof answer.body === 'string' && answer.body.includes('Sandpiper')) {
    return ok(name, `${callbackUrl} answers (this is the redirect URI to register with pre-registered clients)`);
  }
  return fail(
    name,
    `${callbackUrl} answered ${answer.status}, not as Sandpiper's callback`,
    "point gateway.public_url (or the proxy) at this gateway's HTTP listener",
  );
}
