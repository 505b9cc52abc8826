/** Destinations of the egress proxy: `host:port` labels and the allowlist patterns of `tools.network_allow`. */

/** One destination a sandboxed process asked for. `host` is lower-case, without IPv6 brackets. */
export interface EgressDestination {
  host: string;
  port: number;
}

/** `tools.network_allow` entry, parsed: an exact host or a `*.domain` suffix, and a port or any port. */
interface HostPattern {
  host: string;
  wildcard: boolean;
  port: number | undefined;
}

/** The label a destination is approved, remembered and listed under: `network:pypi.org:443`. */
export function egressLabel(destination: EgressDestination): string {
  return `network:${formatDestination(destination)}`;
}

/** `pypi.org:443`, `[2001:db8::1]:443`. */
export function formatDestination(destination: EgressDestination): string {
  return destination.host.includes(':')
    ? `[${destination.host}]:${destination.port}`
    : `${destination.host}:${destination.port}`;
}

/** Parses `host:port` of a CONNECT request or a URL authority; undefined when it is not one. */
export function parseDestination(authority: string, defaultPort?: number): EgressDestination | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]/\s@]+))(?::(\d{1,5}))?$/.exec(authority.trim());
  if (match === null) return undefined;
  const host = (match[1] ?? match[2] ?? '').toLowerCase().replace(/\.$/, '');
  const port = match[3] === undefined ? defaultPort : Number(match[3]);
  if (host === '' || port === undefined || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

function parsePattern(entry: string): HostPattern | undefined {
  const wildcard = entry.startsWith('*.');
  const rest = wildcard ? entry.slice(2) : entry;
  const withPort = /:\d{1,5}$/.test(rest) && !(rest.startsWith('[') && !rest.includes(']:'));
  const parsed = parseDestination(withPort ? rest : `${rest}:1`);
  if (parsed === undefined) return undefined;
  return { host: parsed.host, wildcard, port: withPort ? parsed.port : undefined };
}

/** A matcher over allowlist entries (`pypi.org`, `pypi.org:443`, `*.github.com`, `*.github.com:443`). */
export function hostMatcher(entries: readonly string[]): (destination: EgressDestination) => boolean {
  const patterns = entries
    .map((entry) => parsePattern(entry))
    .filter((pattern): pattern is HostPattern => pattern !== undefined);
  return (destination) =>
    patterns.some((pattern) => {
      if (pattern.port !== undefined && pattern.port !== destination.port) return false;
      return pattern.wildcard ? destination.host.endsWith(`.${pattern.host}`) : destination.host === pattern.host;
    });
}
