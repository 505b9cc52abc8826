/**
 * Standing grants in a live workstream (ADR 0046): which calls a grant in force covers, and the conversation grants
 * "Always" makes. The store decides scope, expiry and revocation; `grantCovers` decides label and arguments.
 */
import { describeError } from '../shared/errors.js';
import { isoNow } from '../shared/time.js';
import type { GrantPlace, GrantStore } from '../storage/grant-store.js';
import type { Stores } from '../storage/stores.js';
import type { Logger } from '../shared/logger.js';
import type { TurnHost } from './turn/turn-types.js';
import { grantCovers, type GrantedCall } from './policy/grant-match.js';

/** The workstream whose calls are checked: its id and its owner. */
interface GrantHolder {
  wsId: string;
  ownerUserId: string;
}

/**
 * The channel keys of a routed thread: `<platform>:<thread id>`, and the channel before `:` where the platform's thread
 * id names it (Slack `C123:1700000000.000100` → `slack:C123`).
 */
export function channelKeys(platform: string, channelId: string): string[] {
  const keys = [`${platform}:${channelId}`];
  const colon = channelId.indexOf(':');
  if (colon > 0) keys.push(`${platform}:${channelId.slice(0, colon)}`);
  return keys;
}

/** Where the workstream's calls are made: itself, its owner and the channel its thread is in. */
export async function grantPlace(stores: Pick<Stores, 'routes'>, holder: GrantHolder): Promise<GrantPlace> {
  const route = await stores.routes.getRouteByWorkstream(holder.wsId);
  return {
    wsId: holder.wsId,
    userId: holder.ownerUserId,
    channels: route === undefined ? [] : channelKeys(route.channelType, route.channelId),
  };
}

/** What the grants need: the two stores and a logger. */
interface GrantEnv {
  stores: { grants: GrantStore; routes: Stores['routes'] };
  logger: Logger;
}

/** The host's grant methods, when the stores keep grants (otherwise "Always" stays in the workstream's set). */
export function grantHostMethods(
  env: { stores: { grants?: GrantStore | undefined; routes?: Stores['routes'] | undefined }; logger: Logger },
  holder: GrantHolder,
): Pick<TurnHost, 'grantedCalls' | 'grantAlways'> {
  const { grants, routes } = env.stores;
  if (grants === undefined || routes === undefined) return {};
  const grantEnv: GrantEnv = { stores: { grants, routes }, logger: env.logger };
  return {
    grantedCalls: (calls) => grantedCalls(grantEnv, holder, calls),
    grantAlways: (input) => grantAlways(grantEnv, holder, input),
  };
}

/** For each call, whether a grant in force covers it; a failed read covers nothing (the owner is asked instead). */
async function grantedCalls(env: GrantEnv, holder: GrantHolder, calls: readonly GrantedCall[]): Promise<boolean[]> {
  try {
    const grants = await env.stores.grants.active(await grantPlace(env.stores, holder), isoNow());
    return calls.map((call) => grants.some((grant) => grantCovers(grant, call)));
  } catch (error) {
    env.logger.error(
      { wsId: holder.wsId, err: describeError(error) },
      'reading approval grants failed; asking instead',
    );
    return calls.map(() => false);
  }
}

/** "Always": one conversation grant per label. A failed write is logged: the calls still run, the next ones ask again. */
async function grantAlways(
  env: GrantEnv,
  holder: GrantHolder,
  input: { labels: readonly string[]; approvalId: string; decidedBy: string },
): Promise<void> {
  try {
    for (const label of input.labels) {
      await env.stores.grants.create({
        scope: 'conversation',
        scopeKey: holder.wsId,
        label,
        createdBy: input.decidedBy,
        approvalId: input.approvalId,
      });
    }
  } catch (error) {
    env.logger.error(
      { wsId: holder.wsId, err: describeError(error) },
      'storing an "always" grant failed; the next call asks again',
    );
  }
}
