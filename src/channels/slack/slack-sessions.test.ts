/** Slack agent sessions: the title of an untitled session comes with `agents.sessions.rename`; refusals are per workspace. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ChannelError } from '../../shared/errors.js';
import { createSilentLogger } from '../../shared/logger.js';
import { SlackSessions } from './slack-sessions.js';

interface Recorded {
  method: string;
  args: Record<string, unknown>;
}

/** A Web API stand-in that records calls and refuses every call for the channels in `refusing` (as bolt's error). */
function recorder(refusing: ReadonlySet<string> = new Set()): {
  calls: Recorded[];
  call: (method: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>;
} {
  const calls: Recorded[] = [];
  return {
    calls,
    call: async (method, args) => {
      calls.push({ method, args });
      if (refusing.has(String(args.channel_id)))
        throw new ChannelError('refused', {
          cause: { code: 'slack_webapi_platform_error', data: { error: 'not_allowed_token_type' } },
        });
      return { ok: true };
    },
  };
}

const signal = new AbortController().signal;

describe('slack sessions', () => {
  it('names an untitled session once a turn brings a title, and only then', async () => {
    const { calls, call } = recorder();
    const sessions = new SlackSessions(true, call, createSilentLogger());
    await sessions.setStatus('C1:1.0', 'processing', '   ', signal);
    await sessions.setStatus('C1:1.0', 'active', undefined, signal);
    await sessions.setStatus('C1:1.0', 'processing', 'What changed\nyesterday?', signal);
    await sessions.setStatus('C1:1.0', 'processing', 'Another question', signal);
    assert.deepEqual(
      calls.map((entry) =>
        `${entry.method} ${String(entry.args.status ?? '')} ${String(entry.args.title ?? '')}`.trim(),
      ),
      [
        'agents.sessions.setStatus processing',
        'agents.sessions.setStatus active',
        'agents.sessions.setStatus processing',
        'agents.sessions.rename  What changed yesterday?',
        'agents.sessions.setStatus processing',
      ],
    );
  });

  it('sends the title with the call that creates a session and never renames it', async () => {
    const { calls, call } = recorder();
    const sessions = new SlackSessions(true, call, createSilentLogger());
    await sessions.setStatus('C1:2.0', 'processing', 'First', signal);
    await sessions.setStatus('C1:2.0', 'processing', 'Second', signal);
    assert.deepEqual(
      calls.map((entry) => entry.args.title),
      ['First', undefined],
    );
  });

  it('stops asking a workspace that refused, and goes on with the others', async () => {
    const { calls, call } = recorder(new Set(['C1']));
    const sessions = new SlackSessions(true, call, createSilentLogger(), (channel) => (channel === 'C1' ? 'T1' : 'T2'));
    await sessions.setStatus('C1:1.0', 'processing', 'a', signal);
    await sessions.setStatus('C1:2.0', 'processing', 'b', signal);
    await sessions.setStatus('C2:1.0', 'processing', 'c', signal);
    await sessions.setStatus('C2:1.0', 'active', undefined, signal);
    assert.deepEqual(
      calls.map((entry) => entry.args.channel_id),
      ['C1', 'C2', 'C2'],
    );
    assert.equal(sessions.state, 'refused (not_allowed_token_type)');
  });
});
