/** Attachments on Slack end to end (bolt ↔ fake Slack, files served only to the bot token) with an Anthropic model. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { CHANNEL, SlackHarness } from '../fakes/fake-slack-harness.js';
import { BOT_USER_ID, type FakeSlackUser } from '../fakes/fake-slack.js';
import { imagesIn, lastUserText } from '../helpers/llm-images.js';

describe('Slack attachments with an Anthropic vision model', () => {
  let h: SlackHarness;
  let carol: FakeSlackUser;
  before(async () => {
    // claude-sonnet-4-5 is in the table of vision families: no supports_vision in the config.
    h = await SlackHarness.start({
      provider: 'anthropic',
      flags: { 'models.fake.model': 'claude-sonnet-4-5', 'models.fake.api_key': 'sk-ant-test' },
    });
    carol = (await h.linkedUser('U0CAROL', 'carol')).user;
  });
  after(() => h.close());

  it('sends a file_share image in a thread as an Anthropic image block, downloaded with the bot token', async () => {
    h.llm.enqueue({ text: 'Hello.' });
    const { threadTs } = h.mention(carol, 'hi');
    await h.fake.waitFor(() => h.textReplies(threadTs).some((m) => m.text === 'Hello.'), 15_000, 'first answer');
    const jpeg = await sharp({ create: { width: 3000, height: 1000, channels: 3, background: '#27ae60' } })
      .jpeg()
      .toBuffer();
    h.llm.enqueue({ text: 'A green banner.' });
    h.fake.userMessageWithFiles(
      carol,
      CHANNEL,
      'what is this?',
      [{ name: 'banner.jpg', contentType: 'image/jpeg', bytes: jpeg }],
      threadTs,
    );
    await h.fake.waitFor(
      () => h.textReplies(threadTs).some((m) => m.text === 'A green banner.'),
      15_000,
      'answer about the image',
    );
    const request = h.llm.requests.at(-1);
    assert.equal(request?.vendor, 'anthropic');
    const images = imagesIn(request?.body);
    assert.equal(images.length, 1);
    assert.equal(images[0]?.mediaType, 'image/jpeg');
    const seen = await sharp(images[0]?.bytes).metadata();
    assert.deepEqual([seen.width, seen.height], [1568, 523]);
    assert.match(
      lastUserText(request?.body),
      /banner\.jpg \(3000×1000.*shown to the model as attachments\/banner-resized\.jpg \(1568×523\)/,
    );
    assert.ok(h.fake.files.requests.length > 0);
    assert.ok(
      h.fake.files.requests.every((r) => r.authorization === `Bearer ${h.fake.botToken}`),
      'files.slack.com got the bot token',
    );
  });

  it('starts a thread from a mention that shares a file (the app_mention twin is not a second message)', async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    h.llm.enqueue({ text: 'A black dot.' });
    const before = h.llm.requests.length;
    const { message } = h.fake.userMessageWithFiles(carol, CHANNEL, `<@${BOT_USER_ID}> describe`, [
      { name: 'dot.png', contentType: 'image/png', bytes: png },
    ]);
    await h.fake.waitFor(
      () => h.textReplies(message.ts).some((m) => m.text === 'A black dot.'),
      15_000,
      'answer in the new thread',
    );
    assert.equal(h.llm.requests.length, before + 1, 'one turn');
    assert.equal(imagesIn(h.llm.requests.at(-1)?.body).length, 1);
  });

  it('says so when Slack withholds a file (no download link) and still answers the text', async () => {
    h.llm.enqueue({ text: 'Ok.' });
    const { threadTs } = h.mention(carol, 'another');
    await h.fake.waitFor(() => h.textReplies(threadTs).some((m) => m.text === 'Ok.'), 15_000, 'first answer');
    h.llm.enqueue({ text: 'Text only then.' });
    h.fake.userMessageWithFiles(
      carol,
      CHANNEL,
      'see attached',
      [{ name: 'old.pdf', contentType: 'application/pdf', bytes: Buffer.from('x'), url: '' }],
      threadTs,
    );
    await h.fake.waitFor(() => h.textReplies(threadTs).some((m) => m.text === 'Text only then.'), 15_000, 'answer');
    const notice = h.textReplies(threadTs).find((m) => m.text.includes('Some attachments were not used'));
    assert.match(notice?.text ?? '', /old\.pdf: the platform gave no download address for it/);
    assert.match(lastUserText(h.llm.requests.at(-1)?.body), /^see attached/);
  });
});
