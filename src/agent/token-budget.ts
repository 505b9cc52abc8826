/**
 * Daily token budgets (`[budgets]`, docs/design/usage.md): before a user's turn calls the model, the tokens their
 * conversations used today (UTC, `usage_daily`) are compared with their budget; a spent budget refuses the turn with a
 * note naming when it resets. Budgets are soft: a turn already running may cross it.
 */
import type { Stores } from '../storage/stores.js';

const DAY_MS = 86_400_000;

export interface BudgetSettings {
  /** Input plus output tokens per user and UTC day; 0 = none. */
  userDailyTokens: number;
  /** Per-username budgets instead of `userDailyTokens` (0 = none). */
  users: Readonly<Record<string, number>>;
}

/** Why a turn of `userId` may not call the model now, or undefined when it may. */
export type TokenBudget = (userId: string) => Promise<string | undefined>;

/** Undefined when no budget is configured (nothing is read per turn then). */
export function createTokenBudget(
  settings: BudgetSettings,
  stores: { usage: Pick<Stores['usage'], 'userTokensOn'>; users: Pick<Stores['users'], 'getUser'> },
  now: () => number = Date.now,
): TokenBudget | undefined {
  const overrides = Object.entries(settings.users);
  if (settings.userDailyTokens === 0 && overrides.every(([, tokens]) => tokens === 0)) return undefined;
  return async (userId) => {
    const limit = overrides.length === 0 ? settings.userDailyTokens : await limitOf(settings, stores.users, userId);
    if (limit === 0) return undefined;
    const at = now();
    const used = await stores.usage.userTokensOn(userId, new Date(at).toISOString().slice(0, 10));
    return used >= limit ? budgetSpentNote(limit, at) : undefined;
  };
}

async function limitOf(settings: BudgetSettings, users: Pick<Stores['users'], 'getUser'>, userId: string): Promise<number> {
  const user = await users.getUser(userId);
  return (user === undefined ? undefined : settings.users[user.username]) ?? settings.userDailyTokens;
}

/** "Your daily token budget (200,000 tokens) is spent; it resets at 00:00 UTC, in 5 h 12 min." */
export function budgetSpentNote(limit: number, at: number): string {
  const minutes = Math.max(1, Math.ceil((DAY_MS - (at % DAY_MS)) / 60_000));
  const left = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return `Your daily token budget (${limit.toLocaleString('en-US')} tokens) is spent, so this message was not sent to the model. It resets at 00:00 UTC, in ${left}.`;
}
