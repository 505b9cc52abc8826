/**
 * Daily token budgets (`[budgets]`, docs/design/usage.md): before a turn calls the model, the tokens its owner's
 * conversations (and its channel's) used today (UTC, `usage_daily`) are compared with the budgets; a spent budget
 * refuses the turn with a note naming when it resets. Budgets are soft: a turn already running may cross one.
 */
import { channelOfRoute } from '../shared/usage-channel.js';
import type { Stores } from '../storage/stores.js';

const DAY_MS = 86_400_000;

export interface BudgetSettings {
  /** Input plus output tokens per user and UTC day; 0 = none. */
  userDailyTokens: number;
  /** Per-username budgets instead of `userDailyTokens` (0 = none). */
  users: Readonly<Record<string, number>>;
  /** Input plus output tokens per channel (`<platform>:<channel id>`) and UTC day; 0 = none. */
  channelDailyTokens: number;
  /** Per-channel budgets instead of `channelDailyTokens` (0 = none). */
  channels: Readonly<Record<string, number>>;
}

export interface BudgetStores {
  usage: Pick<Stores['usage'], 'userTokensOn' | 'channelTokensOn'>;
  users: Pick<Stores['users'], 'getUser'>;
  routes?: Pick<Stores['routes'], 'getRouteByWorkstream'> | undefined;
}

/** Why a turn of the conversation may not call the model now, or undefined when it may. */
export type TokenBudget = (turn: { userId: string; wsId: string }) => Promise<string | undefined>;

const anySet = (base: number, overrides: Readonly<Record<string, number>>): boolean => base > 0 || Object.values(overrides).some((tokens) => tokens > 0);

/** Undefined when no budget is configured (nothing is read per turn then). */
export function createTokenBudget(settings: BudgetSettings, stores: BudgetStores, now: () => number = Date.now): TokenBudget | undefined {
  const users = anySet(settings.userDailyTokens, settings.users);
  const channels = anySet(settings.channelDailyTokens, settings.channels) && stores.routes !== undefined;
  if (!users && !channels) return undefined;
  return async ({ userId, wsId }) => {
    const at = now();
    const day = new Date(at).toISOString().slice(0, 10);
    if (users) {
      const limit = await userLimit(settings, stores.users, userId);
      if (limit > 0 && (await stores.usage.userTokensOn(userId, day)) >= limit) return budgetSpentNote('Your daily token budget', limit, at);
    }
    if (channels) {
      const route = await stores.routes?.getRouteByWorkstream(wsId);
      const channel = route === undefined ? undefined : channelOfRoute(route.channelType, route.channelId);
      const limit = channel === undefined ? 0 : (settings.channels[channel] ?? settings.channelDailyTokens);
      if (channel !== undefined && limit > 0 && (await stores.usage.channelTokensOn(channel, day)) >= limit) {
        return budgetSpentNote('This channel\'s daily token budget', limit, at);
      }
    }
    return undefined;
  };
}

async function userLimit(settings: BudgetSettings, users: BudgetStores['users'], userId: string): Promise<number> {
  if (Object.keys(settings.users).length === 0) return settings.userDailyTokens;
  const user = await users.getUser(userId);
  return (user === undefined ? undefined : settings.users[user.username]) ?? settings.userDailyTokens;
}

/** "Your daily token budget (200,000 tokens) is spent, … It resets at 00:00 UTC, in 5 h 12 min." */
export function budgetSpentNote(whose: string, limit: number, at: number): string {
  const minutes = Math.max(1, Math.ceil((DAY_MS - (at % DAY_MS)) / 60_000));
  const left = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return `${whose} (${limit.toLocaleString('en-US')} tokens) is spent, so this message was not sent to the model. It resets at 00:00 UTC, in ${left}.`;
}
