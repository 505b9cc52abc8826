/** Calls a running gateway's HTTP API with a JWT minted from the configured secret (notify, admin). */
import type { Config } from '../config/index.js';
import { ConfigError, GatewayError } from '../shared/errors.js';

export function gatewayBaseUrl(config: Config): string {
  const { http_host: host, http_port: port, advertise_url: advertise } = config.gateway;
  if (advertise) return advertise.replace(/\/$/, '');
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return `http://${shown}:${port}`;
}

/** POSTs (or GETs when `body` is undefined) and returns the parsed JSON; non-2xx answers throw with the gateway's error text. */
export async function callGateway(
  config: Config,
  path: string,
  options: { body?: unknown; scopes: readonly string[]; method?: 'GET' | 'POST'; headers?: Record<string, string> },
): Promise<Record<string, unknown>> {
  if (!config.auth.jwt_secret) throw new ConfigError(['auth.jwt_secret: must be set to call the gateway API (or SANDPIPER_JWT_SECRET)']);
  const { mintServiceToken } = await import('../gateway/http/auth.js');
  const token = await mintServiceToken({ secret: config.auth.jwt_secret, audience: config.auth.jwt_audience }, { scopes: options.scopes });
  const url = `${gatewayBaseUrl(config)}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers: { ...options.headers, 'content-type': 'application/json', authorization: `Bearer ${token}` },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch {
    throw new GatewayError('INTERNAL', `cannot reach the gateway at ${url} (is sandpiper start running?)`);
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const detail = typeof answer['error'] === 'string' ? answer['error'] : 'no details';
    throw new GatewayError('INTERNAL', `gateway answered ${response.status}: ${detail}`);
  }
  return answer;
}
