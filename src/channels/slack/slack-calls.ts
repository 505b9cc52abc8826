/**
 * One Slack Web API call with the right workspace's token (`slack-teams.ts`). On HTTP 429 the gateway is told (a
 * `rate-limited` event for the channel, so the renderer stretches its cadence), the call waits out `retry-after` and
 * is retried; it throws a RATE_LIMITED ChannelError after three refusals.
 */
import type { App } from '@slack/bolt';
import type { InboundEvent } from '../channel-adapter.js';
import { untilAborted } from '../../shared/abort.js';
import { ChannelError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { sleep } from '../../shared/time.js';
import type { SlackTeams } from './slack-teams.js';
import { rateLimitedMs, slackCancelled, toSlackError } from './slack-web.js';

const RATE_LIMIT_ATTEMPTS = 3;
const MAX_RATE_LIMIT_WAIT_MS = 30_000;

export type SlackCall = (
  method: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => Promise<Record<string, unknown>>;

export class SlackCalls {
  app: App | undefined;

  constructor(
    private readonly teams: SlackTeams,
    private readonly logger: Logger,
    private readonly deliver: (event: InboundEvent) => void,
  ) {}

  /** A call without a channel to report rate limits for. */
  readonly plain: SlackCall = (method, args, signal) => this.call(method, args, undefined, signal);

  /** `channelId` (a route key) is told about rate limits; `via` names a channel or user whose workspace to use. */
  async call(
    method: string,
    args: Record<string, unknown>,
    channelId: string | undefined,
    signal: AbortSignal,
    via?: string,
  ): Promise<Record<string, unknown>> {
    const app = this.app;
    if (!app) throw new ChannelError('slack adapter is not started', { code: 'CHANNEL_ERROR' });
    const token = await this.teams.tokenFor(args, via);
    const withToken = token === undefined ? args : { ...args, token };
    for (let attempt = 1; ; attempt += 1) {
      if (signal.aborted) throw new ChannelError(`slack ${method} cancelled`, { code: 'CANCELLED' });
      try {
        return (await untilAborted(app.client.apiCall(method, withToken), signal, () =>
          slackCancelled(method),
        )) as unknown as Record<string, unknown>;
      } catch (error) {
        const retryAfterMs = rateLimitedMs(error);
        if (retryAfterMs === undefined) throw toSlackError(method, error);
        this.logger.debug({ method, retryAfterMs }, 'slack rate limited');
        if (channelId) this.deliver({ type: 'rate-limited', channelId, retryAfterMs });
        if (attempt >= RATE_LIMIT_ATTEMPTS) {
          throw new ChannelError(`slack ${method} rate limited`, {
            code: 'RATE_LIMITED',
            retryable: true,
            retryAfterMs,
          });
        }
        // Rate-limit wait; an abort ends it early and the loop's next check throws CANCELLED.
        await sleep(Math.min(retryAfterMs, MAX_RATE_LIMIT_WAIT_MS), signal).catch(() => undefined);
      }
    }
  }
}
