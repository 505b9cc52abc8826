/** Tests for Slack text conversion: Markdown → mrkdwn, escaping, inert mentions, inbound markup → plain text. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { escapeSlackText, fromSlackText, mentionsUser, slackCommandHints, toMrkdwn } from './slack-format.js';

describe('toMrkdwn', () => {
  it('leaves plain text alone', () => {
    assert.equal(toMrkdwn('Hello Alice, nice to meet you.'), 'Hello Alice, nice to meet you.');
  });

  it('translates bold, italics, strike-through, headings, bullets and links', () => {
    assert.equal(toMrkdwn('**bold** and *italic* and ~~gone~~'), '*bold* and _italic_ and ~gone~');
    assert.equal(toMrkdwn('## Summary'), '*Summary*');
    assert.equal(toMrkdwn('- one\n* two'), '• one\n• two');
    assert.equal(toMrkdwn('see [the docs](https://example.com/a?b=1)'), 'see <https://example.com/a?b=1|the docs>');
  });

  it('keeps code verbatim (escaped only) and drops fence language tags', () => {
    const converted = toMrkdwn('```ts\nconst a = b && **c** < d;\n```\nand `x **y**`');
    assert.equal(converted, '```\nconst a = b &amp;&amp; **c** &lt; d;\n```\nand `x **y**`');
  });

  it('makes Slack markup and mass mentions in model text inert', () => {
    const converted = toMrkdwn('ping <!channel> and <@U123> and @here');
    assert.ok(!converted.includes('<!channel>'));
    assert.ok(!converted.includes('<@U123>'));
    assert.ok(!/@here/.test(converted), 'a zero-width space separates @ from here');
  });
});

describe('escapeSlackText', () => {
  it('escapes &, < and >', () => {
    assert.equal(escapeSlackText('a & <b>'), 'a &amp; &lt;b&gt;');
  });
});

describe('fromSlackText', () => {
  it('removes the bot mention, unwraps links and decodes entities', () => {
    assert.equal(
      fromSlackText('<@U0BOT> check <https://x.io|x.io> &amp; <https://y.io|docs> a &lt; b', 'U0BOT'),
      'check https://x.io & docs (https://y.io) a < b',
    );
    assert.equal(fromSlackText('<@U0BOT|sandpiper>   hi', 'U0BOT'), 'hi');
    assert.equal(fromSlackText('ask <@U0OTHER>', 'U0BOT'), 'ask <@U0OTHER>');
  });

  it('detects mentions of the bot only', () => {
    assert.equal(mentionsUser('hey <@U0BOT>', 'U0BOT'), true);
    assert.equal(mentionsUser('hey <@U0BOTX>', 'U0BOT'), false);
    assert.equal(mentionsUser('hey', ''), false);
  });
});

describe('slackCommandHints', () => {
  it('names the configured slash command', () => {
    assert.equal(slackCommandHints('Use `/link` first.', '/sandpiper'), 'Use `/sandpiper link` first.');
    assert.equal(slackCommandHints('see /unlink or /ask', '/sp'), 'see /sp unlink or /sp ask');
    assert.equal(slackCommandHints('path a/link', '/sp'), 'path a/link');
  });
});
