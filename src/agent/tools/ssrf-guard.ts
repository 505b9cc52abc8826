/** Refuses network destinations on private, loopback, link-local and other non-public addresses (IPv4 and IPv6). */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Returns why an address may not be contacted, or undefined when it is allowed. */
export type AddressPolicy = (address: string) => string | undefined;

/** Allows only globally routable unicast addresses; v4-mapped/embedded IPv6 forms are judged as their IPv4 address. */
export const publicAddressPolicy: AddressPolicy = (address) => {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  } catch {
    return `Blocked: '${address}' is not a valid IP address`;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const embedded = embeddedIpv4(v6);
    if (embedded !== undefined) {
      const inner = publicAddressPolicy(embedded.toString());
      return inner === undefined ? undefined : `Blocked: URL resolves to private/internal address (${address})`;
    }
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return `Blocked: URL resolves to private/internal address (${address})`;
};

/** The IPv4 address carried inside an IPv6 address (mapped, NAT64, 6to4, IPv4-compatible), if any. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const [, w1 = 0, w2 = 0, , , , w6 = 0, w7 = 0] = address.parts;
  const range = address.range();
  if (range === 'rfc6052' || range === 'rfc6145') return ipv4FromWords(w6, w7);
  if (range === '6to4') return ipv4FromWords(w1, w2);
  // Deprecated IPv4-compatible form ::a.b.c.d (but not :: or ::1).
  const isCompatible = address.parts.slice(0, 6).every((part) => part === 0) && (w6 !== 0 || w7 > 1);
  return isCompatible ? ipv4FromWords(w6, w7) : undefined;
}

function ipv4FromWords(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** Allows everything. For tests that talk to a local server only. */
export const allowAllAddressPolicy: AddressPolicy = () => undefined;

/** Checks a URL hostname that is an IP literal; host names are checked at connect time by `guardedLookup`. */
export function checkLiteralHost(hostname: string, policy: AddressPolicy): string | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? policy(bare) : undefined;
}

/**
 * A `lookup` for http(s).request: resolves every address of the host, refuses the connection if ANY of
 * them is blocked (fail closed, also on DNS errors), and hands the checked addresses to the socket, so the
 * connection goes to exactly what was checked (no DNS-rebinding window).
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { all: true, family: options.family ?? 0, hints: options.hints ?? 0 },
      (error, addresses: LookupAddress[]) => {
        if (error) {
          callback(error, '', 0);
          return;
        }
        const blocked = addresses.map((entry) => policy(entry.address)).find((reason) => reason !== undefined);
        if (blocked !== undefined || addresses.length === 0) {
          const refusal = Object.assign(new Error(blocked ?? 'Blocked: host has no addresses'), {
            code: 'ESSRFBLOCKED',
          });
          callback(refusal, '', 0);
          return;
        }
        if (options.all === true) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
          return;
        }
        const first = addresses[0] as LookupAddress;
        callback(null, first.address, first.family);
      },
    );
  };
}
