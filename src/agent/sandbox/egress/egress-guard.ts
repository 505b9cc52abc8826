/**
 * Where the egress proxy may connect: web_fetch's address rules (`publicAddressPolicy`, `guardedLookup`), plus this
 * host's own addresses and the gateway's listen address. Every resolved address is checked and the proxy connects to
 * the checked addresses only, so DNS rebinding cannot bypass the check.
 */
import type { LookupAddress } from 'node:dns';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { guardedLookup, publicAddressPolicy, type AddressPolicy } from '../../tools/ssrf-guard.js';
import { formatDestination, type EgressDestination } from './egress-hosts.js';

export interface EgressGuardOptions {
  /** Exact `host:port` entries whose private addresses the operator trusts (`tools.network_internal`). */
  internal: readonly string[];
  /** The gateway's HTTP listen address; refused whatever the configuration says. */
  gateway?: { host: string; port: number };
}

export type GuardOutcome = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

/** Resolves and checks one destination; never throws (DNS failures are refusals). */
export function checkDestination(destination: EgressDestination, options: EgressGuardOptions): Promise<GuardOutcome> {
  const trusted = options.internal.some((entry) => entry.toLowerCase() === formatDestination(destination));
  const policy = destinationPolicy(destination.port, trusted, options.gateway);
  const lookup = guardedLookup(policy);
  return new Promise((resolve) => {
    lookup(destination.host, { all: true }, (error, addresses) => {
      if (error) {
        const code = (error as NodeJS.ErrnoException).code;
        resolve({
          ok: false,
          reason:
            code === 'ESSRFBLOCKED' ? error.message : `cannot resolve ${destination.host} (${code ?? error.message})`,
        });
        return;
      }
      resolve({ ok: true, addresses: addresses as unknown as LookupAddress[] });
    });
  });
}

/** The address rule for one destination port: the gateway always refused, private ranges unless trusted. */
function destinationPolicy(port: number, trusted: boolean, gateway: EgressGuardOptions['gateway']): AddressPolicy {
  return (address) => {
    if (gateway !== undefined && port === gateway.port && isGatewayAddress(address, gateway.host))
      return `Blocked: ${address}:${port} is the gateway itself`;
    if (trusted) return undefined;
    return publicAddressPolicy(address) ?? (isOwnAddress(address) ? `Blocked: ${address} is this host` : undefined);
  };
}

/** The gateway may listen there: its exact listen address, any loopback address, or one of this host's own addresses. */
function isGatewayAddress(address: string, listenHost: string): boolean {
  const normal = normalise(address);
  if (normal !== undefined && normalise(listenHost) === normal) return true;
  const loopback = normal !== undefined && ipaddr.parse(normal).range() === 'loopback';
  return loopback || isOwnAddress(address);
}

/** One of this machine's interface addresses (a public IP of the host is still the host). */
function isOwnAddress(address: string): boolean {
  const normal = normalise(address);
  return Object.values(os.networkInterfaces()).some((entries) =>
    (entries ?? []).some((entry) => normalise(entry.address) === normal),
  );
}

/** The canonical text of an IP (v4-mapped IPv6 as IPv4); undefined for a name. */
function normalise(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return bare === 'localhost' ? '127.0.0.1' : undefined;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toNormalizedString();
}
