/**
 * Whether this workspace (and channel) takes Slack's native streaming: on until a stream's first call says it cannot,
 * then off for good (the workspace) or for that channel. What is learnt lives in memory: after a restart it costs
 * one refused call to learn again. ADR 0019.
 */
import { LRUCache } from 'lru-cache';
import type { Logger } from '../../shared/logger.js';
import { slackPlatformError } from './slack-web.js';

/** The workspace or app cannot stream at all: every later answer uses chat.update. */
const WORKSPACE_ERRORS = new Set(['unknown_method', 'not_allowed', 'not_allowed_token_type', 'method_deprecated', 'missing_scope', 'feature_not_enabled', 'team_not_allowed']);
/** This channel cannot take streams (a shared or unusual channel type): other channels still stream. */
const CHANNEL_ERRORS = new Set(['channel_type_not_supported', 'method_not_supported_for_channel_type', 'not_in_channel']);
const REMEMBERED_CHANNELS = 1_024;

export class StreamSupport {
  private workspace: 'unknown' | 'yes' | 'no';
  private readonly refusedChannels = new LRUCache<string, true>({ max: REMEMBERED_CHANNELS });

  constructor(enabled: boolean, private readonly logger: Logger) {
    this.workspace = enabled ? 'unknown' : 'no';
  }

  /** Whether a stream may be tried in `channel`. */
  usable(channel: string): boolean {
    return this.workspace !== 'no' && !this.refusedChannels.has(channel);
  }

  /** A stream started: the workspace streams. */
  started(): void {
    this.workspace = 'yes';
  }

  /** The first call of a stream failed: remembers what the error says about the workspace or the channel. */
  startFailed(channel: string, error: unknown): void {
    const code = slackPlatformError(error) ?? '';
    if (WORKSPACE_ERRORS.has(code)) {
      if (this.workspace !== 'no') this.logger.info({ error: code }, 'slack native streaming is not available in this workspace; answers are shown by message edits');
      this.workspace = 'no';
    } else if (CHANNEL_ERRORS.has(code)) {
      this.refusedChannels.set(channel, true);
    }
  }
}
