/**
 * Calls a running gateway's HTTP API: notify with a token minted from the notify secret (`auth.jwt_secret`), the
 * admin API on `admin.listen` with a short-lived token minted from `auth.admin_secret` (ADR 0035).
 */
import type { Config } from '../config/index.js';
import { adminBaseUrl, ADMIN_OFF_HINT } from '../gateway/admin/admin-listen.js';
import { ConfigError, GatewayError } from '../shared/errors.js';
import { cliActor } from './cli-context.js';

export function gatewayBaseUrl(config: Config): string {
  const { http_host: host, http_port: port, advertise_url: advertise } = config.gateway;
  if (advertise) return advertise.replace(/\/$/, '');
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '[::1]' : host;
  return `http://${shown}:${port}`;
}

interface CallOptions {
  body?: unknown;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
}

/** POSTs (or GETs when `body` is undefined) to the notify API; non-2xx answers throw with the gateway's error text. */
export async function callGateway(
  config: Config,
  path: string,
  options: CallOptions & { scopes: readonly string[] },
): Promise<Record<string, unknown>> {
  if (!config.auth.jwt_secret)
    throw new ConfigError(['auth.jwt_secret: must be set to call the gateway API (or SANDPIPER_JWT_SECRET)']);
  const { mintServiceToken } = await import('../gateway/http/auth.js');
  const token = await mintServiceToken(
    { secret: config.auth.jwt_secret, audience: config.auth.jwt_audience },
    { scopes: options.scopes },
  );
  return request(`${gatewayBaseUrl(config)}${path}`, token, options);
}

/** Calls the admin API with a five-minute token for `scope` (`admin:read` for status, `admin:write` for changes). */
export async function callAdmin(
  config: Config,
  path: string,
  options: CallOptions & { scope: 'admin:read' | 'admin:write' },
): Promise<Record<string, unknown>> {
  if (!config.auth.admin_secret) throw new ConfigError([`auth.admin_secret: ${ADMIN_OFF_HINT}`]);
  const { mintAdminToken } = await import('../gateway/http/auth.js');
  const token = await mintAdminToken(config.auth.admin_secret, { subject: cliActor(), scopes: [options.scope] });
  return request(`${adminBaseUrl(config)}${path}`, token, options);
}

async function request(url: string, token: string, options: CallOptions): Promise<Record<string, unknown>> {
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
