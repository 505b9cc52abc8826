/** Token usage per UTC day, conversation and model (`usage_daily`), with the conversation's owner and channel. */

/** One conversation's tokens on one day and model, added to its row (the workstream write carries it). */
export interface UsageDelta {
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  model: string;
  /** Turns that called this model on this day (a turn counts once per model). */
  turns: number;
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache (part of inputTokens). */
  cachedTokens: number;
}

export type UsageGrouping = 'user' | 'channel' | 'model' | 'conversation';

export const USAGE_GROUPINGS: readonly UsageGrouping[] = ['user', 'channel', 'model', 'conversation'];

/** One line of a usage report: a key of the grouping on one day. */
export interface UsageLine {
  key: string;
  /** What people call the key: a user's name, a conversation's name; the key itself for channels and models. */
  label: string;
  day: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
}

export interface UsageStore {
  /** Lines per key and day from `sinceDay` (inclusive), newest day first, then by key. */
  report(by: UsageGrouping, sinceDay: string): Promise<UsageLine[]>;
  /** Input plus output tokens a user's conversations used on `day`. */
  userTokensOn(userId: string, day: string): Promise<number>;
  /** Input plus output tokens of the conversations routed from `channel` (`<platform>:<id>`) on `day`. */
  channelTokensOn(channel: string, day: string): Promise<number>;
}
