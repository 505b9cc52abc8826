/**
 * Whether this workspace (and channel) takes Slack's native streaming: on until a stream's first call says it cannot,
 * then off for good (that workspace) or for that channel. What is learnt lives in memory: after a restart it costs
 * one refused call to learn again. ADR 0019.
 */
import { LRUCache } from 'lru-cache';
import type { NativeStream, SessionStatus, StreamingFeature } from '../channel-adapter.js';
import type { Logger } from '../../shared/logger.js';
import { isDirect, parseTarget } from './slack-events.js';
import { SlackNativeStream, type StreamCall, type StreamLimits } from './slack-native-stream.js';
import { slackPlatformError } from './slack-web.js';

/** The workspace or app cannot stream at all: every later answer uses chat.update. */
const WORKSPACE_ERRORS = new Set([
  'unknown_method',
  'not_allowed',
  'not_allowed_token_type',
  'method_deprecated',
  'missing_scope',
  'feature_not_enabled',
  'team_not_allowed',
]);
/** This channel cannot take streams (a shared or unusual channel type): other channels still stream. */
const CHANNEL_ERRORS = new Set([
  'channel_type_not_supported',
  'method_not_supported_for_channel_type',
  'not_in_channel',
]);
const REMEMBERED_CHANNELS = 1_024;

/** What opening a stream needs of the adapter. */
export interface StreamOpening {
  /** Who last asked in the thread (Slack streams only to a named recipient outside DMs). */
  asker: string | undefined;
  /** The channel's workspace, when known. */
  teamId: string | undefined;
  call(method: string, args: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  limits: Partial<StreamLimits> | undefined;
  /** The thread's agent session status, kept when a streamed message stops. */
  sessionStatus?: () => SessionStatus | undefined;
}

/**
 * Stops the stream a killed process left open on message `ts` (`StreamingFeature.end`). A message with nothing to end
 * answers `message_not_in_streaming_state` (stopped, ended by Slack after its five minutes, or never streamed) or, in a
 * workspace that cannot stream, one of its refusals: it is left as it is. Any other failure is thrown (ChannelError).
 */
async function endOpenStream(call: StreamCall, channel: string, ts: string, signal: AbortSignal): Promise<void> {
  try {
    await call('chat.stopStream', { channel, ts }, signal);
  } catch (error) {
    const code = slackPlatformError(error) ?? '';
    if (code !== 'message_not_in_streaming_state' && !WORKSPACE_ERRORS.has(code)) throw error;
  }
}

/** What the adapter lends the streaming feature: its calls and what it knows of a thread (a route key). */
export interface StreamHost {
  call(
    method: string,
    args: Record<string, unknown>,
    channelId: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>>;
  opening(channelId: string): Omit<StreamOpening, 'call'>;
}

/** The Slack adapter's `streaming` feature: a stream where the workspace takes one; ending one a killed process left. */
export function streamingFeature(support: StreamSupport, host: StreamHost): StreamingFeature {
  const callIn =
    (channelId: string): StreamCall =>
    (method, args, signal) =>
      host.call(method, args, channelId, signal);
  return {
    open: (channelId) => support.open(channelId, { ...host.opening(channelId), call: callIn(channelId) }),
    end: (channelId, ts, signal) => endOpenStream(callIn(channelId), parseTarget(channelId).channel, ts, signal),
  };
}

export class StreamSupport {
  /** Workspaces ('' when there is one) that cannot stream. */
  private readonly refusedWorkspaces = new Set<string>();
  private readonly refusedChannels = new LRUCache<string, true>({ max: REMEMBERED_CHANNELS });

  constructor(
    private readonly enabled: boolean,
    private readonly logger: Logger,
  ) {}

  /** Whether a stream may be tried in `channel` of workspace `team`. */
  usable(channel: string, team = ''): boolean {
    return this.enabled && !this.refusedWorkspaces.has(team) && !this.refusedChannels.has(channel);
  }

  /**
   * A native stream for answer text in a thread (a route key), when the workspace streams; outside DMs only for a
   * thread whose asker is known, else undefined (chat.update).
   */
  open(channelId: string, opening: StreamOpening): NativeStream | undefined {
    const { channel, threadTs } = parseTarget(channelId);
    const team = opening.teamId ?? '';
    if (!threadTs || !this.usable(channel, team)) return undefined;
    const recipient = opening.asker && opening.teamId ? { userId: opening.asker, teamId: opening.teamId } : undefined;
    if (!recipient && !isDirect(channel)) return undefined;
    return new SlackNativeStream(
      { channel, threadTs, recipient, sessionStatus: opening.sessionStatus },
      opening.call,
      opening.limits,
      (error) => {
        if (error !== undefined) this.startFailed(channel, team, error);
      },
    );
  }

  /** The first call of a stream failed: remembers what the error says about the workspace or the channel. */
  startFailed(channel: string, team: string, error: unknown): void {
    const code = slackPlatformError(error) ?? '';
    if (WORKSPACE_ERRORS.has(code)) {
      if (!this.refusedWorkspaces.has(team))
        this.logger.info(
          { error: code },
          'slack native streaming is not available in this workspace; answers are shown by message edits',
        );
      this.refusedWorkspaces.add(team);
    } else if (CHANNEL_ERRORS.has(code)) {
      this.refusedChannels.set(channel, true);
    }
  }
}
