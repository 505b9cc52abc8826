/** Where the admin API listens (`admin.listen`, ADR 0035) and whether that address is loopback only. */
import type { Config } from '../../config/index.js';

export interface ListenAddress {
  host: string;
  port: number;
}

/** `127.0.0.1:8191` → {host: '127.0.0.1', port: 8191}; `[::1]:8191` → {host: '::1', …}. The schema checked the form. */
export function adminListenAddress(config: Pick<Config, 'admin'>): ListenAddress {
  const text = config.admin.listen;
  const at = text.lastIndexOf(':');
  const host = text.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(text.slice(at + 1)) };
}

/** True for 127.0.0.0/8, ::1 and `localhost`: an address other hosts cannot reach. */
export function isLoopbackHost(host: string): boolean {
  return (
    host === 'localhost' ||
    host === '::1' ||
    /^127\.\d+\.\d+\.\d+$/.test(host) ||
    /^::ffff:127\.\d+\.\d+\.\d+$/i.test(host)
  );
}

/** The URL the CLI calls: a wildcard bind is reached through loopback. */
export function adminBaseUrl(config: Pick<Config, 'admin'>): string {
  const { host, port } = adminListenAddress(config);
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** What the CLI and the main listener say when the admin API is not configured. */
export const ADMIN_OFF_HINT =
  'the admin API is off: set auth.admin_secret (or SANDPIPER_ADMIN_SECRET, at least 32 characters, different from auth.jwt_secret); ' +
  'it then listens on admin.listen (default 127.0.0.1:8191)';
