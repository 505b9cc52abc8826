/** Tests for Slack message events → inbound events: route keys, mentions, threads, DMs and what is ignored. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseTarget, toInboundMessage, type SlackScope } from './slack-events.js';
import { parseCommandText } from './slack-interactions.js';

const scope: SlackScope = { botUserId: 'U0BOT', botId: 'B0BOT', channelIds: new Set() };
const base = { type: 'message', channel: 'C1', channel_type: 'channel', user: 'U1', ts: '1.000002' };

describe('toInboundMessage', () => {
  it('turns a mention into a channel message with the mention stripped', () => {
    const event = toInboundMessage({ ...base, text: '<@U0BOT> hello there' }, scope);
    assert.deepEqual(event?.conversation, { kind: 'channel', channelId: 'C1' });
    assert.equal(event?.text, 'hello there');
    assert.equal(event?.mentioned, true);
    assert.equal(event?.messageId, '1.000002');
  });

  it('keys thread messages by <channel>:<thread_ts> and DMs as direct', () => {
    assert.deepEqual(toInboundMessage({ ...base, text: 'more', thread_ts: '1.000001' }, scope)?.conversation, {
      kind: 'thread',
      channelId: 'C1:1.000001',
    });
    assert.equal(toInboundMessage({ ...base, text: 'more', thread_ts: '1.000001' }, scope)?.mentioned, false);
    assert.deepEqual(
      toInboundMessage({ ...base, channel: 'D1', channel_type: 'im', text: 'hi' }, scope)?.conversation,
      { kind: 'direct', channelId: 'D1' },
    );
  });

  it('ignores bots, the bot itself, subtypes and channels outside the allow-list', () => {
    assert.equal(toInboundMessage({ ...base, text: 'x', bot_id: 'B2' }, scope), undefined);
    assert.equal(toInboundMessage({ ...base, text: 'x', user: 'U0BOT' }, scope), undefined);
    assert.equal(toInboundMessage({ ...base, text: 'x', subtype: 'message_changed' }, scope), undefined);
    assert.equal(
      toInboundMessage({ ...base, text: '<@U0BOT> x' }, { ...scope, channelIds: new Set(['C9']) }),
      undefined,
    );
  });

  it('keeps a file_share message with its files (the private download URL, size and type)', () => {
    const files = [
      {
        name: 'a.png',
        mimetype: 'image/png',
        size: 12,
        url_private: 'https://files.slack.com/files-pri/T1-F1/a.png',
        url_private_download: 'https://files.slack.com/files-pri/T1-F1/download/a.png',
      },
      { title: 'hidden', mimetype: 'application/pdf' },
    ];
    const event = toInboundMessage(
      { ...base, subtype: 'file_share', text: 'see', thread_ts: '1.000001', files },
      scope,
    );
    assert.equal(event?.text, 'see');
    assert.deepEqual(event?.attachments, [
      {
        name: 'a.png',
        url: 'https://files.slack.com/files-pri/T1-F1/download/a.png',
        size: 12,
        contentType: 'image/png',
      },
      { name: 'hidden', url: '', size: undefined, contentType: 'application/pdf' },
    ]);
  });
});

describe('parseTarget', () => {
  it('splits route keys and accepts bare channels', () => {
    assert.deepEqual(parseTarget('C1:1.000001'), { channel: 'C1', threadTs: '1.000001' });
    assert.deepEqual(parseTarget('C1'), { channel: 'C1', threadTs: undefined });
    assert.deepEqual(parseTarget('C1:'), { channel: 'C1', threadTs: undefined });
  });
});

describe('parseCommandText', () => {
  it('treats a known first word as the subcommand and anything else as a question', () => {
    assert.deepEqual(parseCommandText('status'), { name: 'status', rest: '' });
    assert.deepEqual(parseCommandText('ask  why is the sky blue'), { name: 'ask', rest: 'why is the sky blue' });
    assert.deepEqual(parseCommandText('linking up the docs'), { name: 'ask', rest: 'linking up the docs' });
    assert.deepEqual(parseCommandText('  '), { name: 'help', rest: '' });
    assert.deepEqual(parseCommandText('mcp refresh'), { name: 'mcp', rest: 'refresh' });
  });
});
