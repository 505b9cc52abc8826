/** Attachments on Discord end to end (discord.js ↔ fake Discord with its CDN): Anthropic image blocks, restart, no vision. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { noVisionNote } from '../../src/agent/turn/attached-images.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';
import { imagesIn, lastUserText } from '../helpers/llm-images.js';

const png = (size: number): Promise<Buffer> =>
  sharp({ create: { width: size, height: size, channels: 3, background: '#2e86de' } })
    .png()
    .toBuffer();

describe('Discord attachments with an Anthropic vision model (from the default family table)', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  before(async () => {
    // claude-3-5-haiku is in the table of vision families: no supports_vision in the config.
    h = await DiscordHarness.start({
      provider: 'anthropic',
      flags: { 'models.fake.model': 'claude-3-5-haiku-latest' },
    });
    alice = (await h.linkedUser('400000000000000201', 'alice')).user;
  });
  after(() => h.close());

  it('starts a thread from a mention with an image, fetched from the CDN without the bot token, and keeps it across a restart', async () => {
    const image = await png(64);
    h.llm.enqueue({ text: 'A blue square.' });
    const message = h.fake.injectWithFiles(
      CHANNEL_ID,
      alice,
      'what is this?',
      [{ name: 'square.png', contentType: 'image/png', bytes: image }],
      true,
    );
    const threadId = message.id;
    await h.fake.waitFor(() => h.textMessages(threadId).some((m) => m.content === 'A blue square.'), 15_000, 'answer');
    const first = imagesIn(h.llm.requests.at(-1)?.body);
    assert.equal(h.llm.requests.at(-1)?.vendor, 'anthropic');
    assert.deepEqual(
      first.map((sent) => [sent.vendor, sent.mediaType]),
      [['anthropic', 'image/png']],
    );
    assert.deepEqual(
      first.map((sent) => sent.bytes),
      [image],
      'the image itself (small enough to pass unchanged)',
    );
    assert.ok(h.fake.files.requests.length > 0);
    assert.ok(
      h.fake.files.requests.every((request) => request.authorization === undefined),
      'no token sent to the CDN',
    );

    const rows = await h.db.knex('conversations').whereNotNull('content_parts').select('content_parts');
    assert.ok(rows.length > 0, 'the image message is stored with its parts');
    assert.ok(
      rows.every((row: { content_parts: string | null }) => (row.content_parts ?? '').length < 2000),
      'no base64 in the conversations table',
    );

    await h.crash();
    await h.boot();
    h.llm.enqueue({ text: 'Still blue.' });
    h.fake.state.injectMessage(threadId, alice, 'and now?');
    await h.fake.waitFor(
      () => h.textMessages(threadId).some((m) => m.content === 'Still blue.'),
      15_000,
      'answer after restart',
    );
    const after = imagesIn(h.llm.requests.at(-1)?.body);
    assert.deepEqual(
      after.map((sent) => sent.bytes),
      [image],
      'the history still carries the image after a restart',
    );
  });
});

describe('Discord attachments with a model without vision', () => {
  let h: DiscordHarness;
  let bob: FakeUser;
  before(async () => {
    h = await DiscordHarness.start();
    bob = (await h.linkedUser('400000000000000202', 'bob')).user;
  });
  after(() => h.close());

  it('saves the image and gives the model a note instead of an error', async () => {
    h.llm.enqueue({ text: 'Hi.' });
    const { threadId } = await h.mention(bob, 'hello');
    await h.fake.waitFor(() => h.textMessages(threadId).some((m) => m.content === 'Hi.'), 15_000, 'first answer');
    const image = await png(32);
    h.llm.enqueue({ text: 'I cannot see images, but it is saved.' });
    h.fake.injectWithFiles(threadId, bob, 'look', [{ name: 'pic.png', contentType: 'image/png', bytes: image }]);
    await h.fake.waitFor(
      () => h.textMessages(threadId).some((m) => m.content === 'I cannot see images, but it is saved.'),
      15_000,
      'answer',
    );
    const body = h.llm.requests.at(-1)?.body;
    assert.deepEqual(imagesIn(body), []);
    assert.ok(lastUserText(body).includes(noVisionNote('attachments/pic.png')));
    assert.match(lastUserText(body), /^look/);
    assert.deepEqual(await h.workspaceFile(threadId, 'attachments/pic.png'), image);
    assert.ok(!h.textMessages(threadId).some((m) => /Error/.test(m.content)), 'no error shown');
  });
});
