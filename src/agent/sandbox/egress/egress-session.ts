/**
 * One sandboxed call's egress: its own proxy on a private socket, and the decisions for the destinations it asks for
 * (address rules first, so loopback, private and metadata addresses never reach a card; then the allowlist, standing
 * decisions, this call's earlier answers, and last the owner's card).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describeError } from '../../../shared/errors.js';
import type { Logger } from '../../../shared/logger.js';
import { checkDestination, type EgressGuardOptions } from './egress-guard.js';
import { egressLabel, formatDestination, type EgressDestination } from './egress-hosts.js';
import { startEgressProxy, type EgressVerdict } from './egress-proxy.js';

/** The owner's answer on a network card. */
export type NetworkAnswer = 'once' | 'always' | 'deny';

/** How a call's destinations reach the workstream: standing decisions and the owner's card. */
export interface NetworkPermissions {
  /** A standing decision: the workstream's "Always here" set or a `network:…` tool policy; undefined = none. */
  standing(label: string): Promise<'allow' | 'deny' | 'ask' | undefined>;
  /** Asks the conversation's owner with a durable card; "always" is remembered by the caller; rejects on abort. */
  ask(
    request: { tool: string; destination: EgressDestination; label: string },
    signal: AbortSignal,
  ): Promise<NetworkAnswer>;
}

export interface EgressSessionOptions extends EgressGuardOptions {
  /** The tool whose process asks (shown on the card and in the log). */
  tool: string;
  workstreamId: string;
  /** `tools.network_allow`, compiled. */
  isAllowed(destination: EgressDestination): boolean;
  /** Absent = no card can be shown (no conversation): only allowlisted destinations pass. */
  permissions?: NetworkPermissions;
  logger: Logger;
  signal: AbortSignal;
}

export interface EgressSession {
  /** The proxy's socket on the host, bound into the sandbox. */
  readonly socketPath: string;
  close(): Promise<void>;
}

/** Opens the call's proxy in a fresh folder only the gateway's user can enter. */
export async function openEgressSession(options: EgressSessionOptions): Promise<EgressSession> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'sandpiper-egress-'));
  const socketPath = path.join(folder, 'proxy.sock');
  const answers = new Map<string, Promise<EgressVerdict>>();
  // A card still open when the process ends (time-out, exit) is withdrawn: nobody would use the answer.
  const ended = new AbortController();
  const permissions = options.permissions === undefined ? undefined : oneCardAtATime(options.permissions);
  const call = {
    ...options,
    signal: AbortSignal.any([options.signal, ended.signal]),
    ...(permissions === undefined ? {} : { permissions }),
  };
  const decide = (destination: EgressDestination): Promise<EgressVerdict> => decideOnce(destination, call, answers);
  try {
    const proxy = await startEgressProxy({ socketPath, decide });
    return {
      socketPath,
      close: async () => {
        ended.abort(new Error('the call ended before a decision'));
        await proxy.close();
        await rm(folder, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Cards one call may open: a process that asks about more new hosts is refused without another card. */
export const MAX_CARDS_PER_CALL = 5;

const CARD_LIMIT = 'EGRESS_CARD_LIMIT';

/** One card open at a time per call, at most MAX_CARDS_PER_CALL of them (a looping process cannot flood the thread). */
function oneCardAtATime(permissions: NetworkPermissions): NetworkPermissions {
  let asked = 0;
  let previous: Promise<unknown> = Promise.resolve();
  return {
    standing: (label) => permissions.standing(label),
    ask: (request, signal) => {
      if (asked >= MAX_CARDS_PER_CALL)
        return Promise.reject(Object.assign(new Error('card limit'), { code: CARD_LIMIT }));
      asked += 1;
      const answer = previous.then(() => permissions.ask(request, signal));
      // Only the order is kept here; each caller handles its own answer or failure.
      previous = answer.then(
        () => undefined,
        () => undefined,
      );
      return answer;
    },
  };
}

/** The address check runs on every connection (DNS may change); the decision about the host is made once per call. */
async function decideOnce(
  destination: EgressDestination,
  options: EgressSessionOptions,
  answers: Map<string, Promise<EgressVerdict>>,
): Promise<EgressVerdict> {
  const checked = await checkDestination(destination, options);
  if (!checked.ok) {
    log(options, destination, 'refused', checked.reason);
    return checked;
  }
  const label = egressLabel(destination);
  let decided = answers.get(label);
  if (decided === undefined) {
    decided = decideHost(destination, label, options);
    answers.set(label, decided);
  }
  const verdict = await decided;
  return verdict.ok ? { ok: true, addresses: checked.addresses } : verdict;
}

async function decideHost(
  destination: EgressDestination,
  label: string,
  options: EgressSessionOptions,
): Promise<EgressVerdict> {
  const allowed = { ok: true as const, addresses: [] };
  const shown = formatDestination(destination);
  if (options.isAllowed(destination)) return logged(options, destination, 'allowed', 'tools.network_allow', allowed);
  const permissions = options.permissions;
  if (permissions === undefined)
    return logged(options, destination, 'refused', `${shown} is not on tools.network_allow and no one can be asked`);
  try {
    const standing = await permissions.standing(label);
    if (standing === 'allow') return logged(options, destination, 'allowed', 'standing decision', allowed);
    if (standing === 'deny') return logged(options, destination, 'refused', `${shown} is denied by a network policy`);
    const answer = await permissions.ask({ tool: options.tool, destination, label }, options.signal);
    if (answer === 'deny') return logged(options, destination, 'refused', `the owner denied ${shown}`);
    return logged(options, destination, 'allowed', answer === 'always' ? 'owner: always here' : 'owner: once', allowed);
  } catch (error) {
    if ((error as { code?: unknown }).code === CARD_LIMIT) {
      return logged(
        options,
        destination,
        'refused',
        `${shown} is new and this call already asked about ${MAX_CARDS_PER_CALL} hosts; add it to tools.network_allow or answer "Always here"`,
      );
    }
    options.logger.warn(
      { wsId: options.workstreamId, tool: options.tool, destination: shown, err: describeError(error) },
      'network approval failed',
    );
    return logged(
      options,
      destination,
      'refused',
      options.signal.aborted ? 'the call ended before a decision' : `no decision for ${shown}`,
    );
  }
}

function logged(
  options: EgressSessionOptions,
  destination: EgressDestination,
  decision: 'allowed' | 'refused',
  reason: string,
  verdict?: EgressVerdict,
): EgressVerdict {
  log(options, destination, decision, reason);
  return verdict ?? { ok: false, reason: reason.startsWith('Blocked') ? reason : `Blocked: ${reason}` };
}

function log(
  options: EgressSessionOptions,
  destination: EgressDestination,
  decision: 'allowed' | 'refused',
  reason: string,
): void {
  options.logger.info(
    { wsId: options.workstreamId, tool: options.tool, destination: formatDestination(destination), decision, reason },
    'tool network request',
  );
}
