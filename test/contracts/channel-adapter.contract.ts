/**
 * The ChannelAdapter contract: what every platform must do the same, checked end to end through the platform's real
 * client library (discord.js, bolt) against its fake, with the real gateway and agent in between. A platform joins
 * by writing a `ContractDriver` (test/integration/channel-adapter.<platform>.test.ts). Behaviour written once in the
 * gateway can only drift per platform in the adapter; this suite is where that shows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { ForeignFileHost, type FakeFile, type FileRequest } from '../fakes/fake-file-host.js';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';
import { imagesIn, lastUserText } from '../helpers/llm-images.js';

/** A card as a person sees it: its text (embed or blocks, serialised) and its button labels. */
export interface SeenCard {
  text: string;
  buttons: string[];
}

/** One click: what the clicking person saw privately, and whether a feedback form opened for them. */
export interface SeenClick {
  reply(): string | undefined;
  formOpened(): boolean;
  /** Fills in and submits the feedback form this click opened. */
  submitFeedback(text: string): void;
}

/** Platform-neutral hands on one platform's fake; `U` is the fake's user type. */
export interface ContractDriver<U = unknown> {
  readonly llm: FakeLlmServer;
  /** Users linked to new Sandpiper users. */
  linkedUser(id: string, name: string): Promise<U>;
  /** The user mentions the bot in the allowed channel; resolves with the thread the bot answers in. */
  mention(user: U, text: string): Promise<string>;
  /** The user writes in a thread; returns the platform message id. */
  say(user: U, threadId: string, text: string): string;
  /** The user writes in a thread with files attached (served by the platform fake); returns the platform message id. */
  sayWithFiles(user: U, threadId: string, text: string, files: readonly FakeFile[]): string;
  /** A file in the workspace folder of the thread's workstream; undefined when it is not there. */
  workspaceFile(threadId: string, relative: string): Promise<Buffer | undefined>;
  /** Requests the platform fake's file host received (path and Authorization header). */
  fileRequests(): readonly FileRequest[];
  /** The bot's plain-text messages in a thread, oldest first, as currently shown. */
  texts(threadId: string): string[];
  /** How many times the bot's messages in a thread were edited. */
  edits(threadId: string): number;
  cards(threadId: string): SeenCard[];
  click(threadId: string, cardIndex: number, label: string, user: U): SeenClick;
  /** Reactions the bot put on a message, by meaning (`queued`, `refused`), mapped back from the platform's emoji. */
  reactions(messageId: string): string[];
  /** The user's DM with the bot, as a place for `texts`, `cards` and `click`. */
  directPlace(user: U): string;
  /** The user writes at the top level of their DM; returns the message id. */
  sayDirect(user: U, text: string): string;
  /** The user runs the close command in their DM; resolves with the private answer. */
  closeDirect(user: U): Promise<string>;
  /** The workstream a thread opened by `mention` is routed to. */
  workstreamOf(threadId: string): Promise<string>;
  /**
   * The notify endpoint posts `text` for workstream `wsId`: to a linked user by username (their DM) or, for
   * `channel`, into the test channel. Resolves with the posted message id.
   */
  notify(target: { username: string } | 'channel', text: string, wsId: string): Promise<string>;
  /** The user replies to a bot message (Discord: a message reply; Slack: in its thread); returns where the answer shows. */
  reply(user: U, messageId: string, text: string): string;
  /** Ids of the bot's plain-text messages in a place, in the order of `texts`. */
  textIds(place: string): string[];
  /** Moves the gateway's clock forward by `ms` (0 puts it back). */
  setClockOffset(ms: number): void;
  /** Stops gateway and agent as a crash would, and starts them again on the same database and fakes. */
  restart(): Promise<void>;
  /** The platform answers the next `times` message posts (or edits) with a rate limit; returns how often it did. */
  rateLimitEdits(times: number): () => number;
  /** Requests the fake refused because they break the platform's published API description (none expected). */
  protocolProblems(): string[];
  /**
   * The user runs a thread command the way the platform offers it (Discord: the slash command in the thread; Slack:
   * the slash command, which acts on the user's latest thread); resolves with the private answer.
   */
  command(user: U, threadId: string, name: 'model' | 'status' | 'cancel', arg?: string): Promise<string>;
  /** Whether one of the bot's messages in the thread shows the Stop button. */
  hasStop(threadId: string): boolean;
  /** The user clicks the Stop button in the thread. */
  clickStop(threadId: string, user: U): SeenClick;
  /** Private notices the user got about messages they wrote (Slack: ephemeral; Discord: replies to their messages). */
  notices(user: U): string[];
  /** Polls until `probe` is truthy. */
  waitFor<T>(probe: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }],
});

/**
/**
 * Flags of the main contract gateway: a small queue bound (so the refusal is reachable), a vision model and a 1 MB
 * attachment limit (so an oversize file is cheap to make). The harness's per-user rate is high enough for the whole
 * suite; the limits have their own gateway, with the defaults.
 */
export const CONTRACT_FLAGS = {
  'agent.max_queued_messages': 1,
  'models.fake.supports_vision': true,
  'gateway.max_attachment_mb': 1,
};
/** The inbound-limits gateway: the default rate (10 per 60 s; the harness raises it for other scenarios), a short length cap. */
export const LIMIT_FLAGS = {
  'gateway.max_message_chars': 500,
  'gateway.user_rate_limit': 10,
  'gateway.user_rate_window_s': 60,
};
/** A second model alias every driver configures next to `fake` (model `fake-model`), on the same fake LLM. */
export const CONTRACT_MODELS = { other: 'other-model' };

/** A solid PNG of the given size (too large for the models when over 1568 px). */
export function pngOf(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: '#c0392b' } })
    .png()
    .toBuffer();
}

export const PDF_BYTES = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
);

/** `start(flags)` boots a driver whose gateway has `flags` and the models `fake` and CONTRACT_MODELS. */
export function channelAdapterContract<U>(
  platform: string,
  start: (flags: Record<string, unknown>) => Promise<ContractDriver<U>>,
): void {
  limitsContract(platform, start);
  describe(`ChannelAdapter contract: ${platform}`, () => {
    let d: ContractDriver<U>;
    let owner: U;
    let stranger: U;
    let foreign: ForeignFileHost;
    before(async () => {
      foreign = await ForeignFileHost.start();
      d = await start(CONTRACT_FLAGS);
      owner = await d.linkedUser(platform === 'slack' ? 'U0CONOWNER' : '400000000000000091', 'owner');
      stranger = await d.linkedUser(platform === 'slack' ? 'U0CONSTRANGER' : '400000000000000092', 'stranger');
    });
    after(async () => {
      await d.close();
      await foreign.close();
    });

    it('starts a thread from a mention and streams the answer into it', async () => {
      d.llm.enqueue({ text: 'Hello from the contract.' });
      const threadId = await d.mention(owner, 'hello');
      await d.waitFor(() => d.texts(threadId).includes('Hello from the contract.'), 'answer in the thread');
    });

    it('edits a message as it streams and chunks an answer longer than one message', async () => {
      const words = Array.from({ length: 1500 }, (_, i) => `w${i} `);
      const long = words.join('').trim();
      const pieces = Array.from({ length: 30 }, (_, i) => words.slice(i * 50, i * 50 + 50).join(''));
      d.llm.enqueue({ text: pieces, delayMs: 5 });
      const threadId = await d.mention(owner, 'say a lot');
      const joined = (): string => d.texts(threadId).join(' ').replace(/\s+/g, ' ').trim();
      await d.waitFor(() => joined() === long, 'the whole long answer', 30_000);
      assert.ok(d.texts(threadId).length >= 2, 'split over several messages');
      assert.ok(d.edits(threadId) >= 1, 'messages were edited while streaming');
    });

    it('shows an approval card, refuses a stranger, and shows the owner’s decision on it', async () => {
      d.llm.enqueue(bash('call_k1', 'echo contract'), { text: 'Ran it.' });
      const threadId = await d.mention(owner, 'run something');
      const card = await d.waitFor(() => d.cards(threadId)[0], 'approval card');
      assert.deepEqual(card.buttons, ['Approve', 'Always', 'Reject']);
      const refused = d.click(threadId, 0, 'Approve', stranger);
      assert.match(await d.waitFor(() => refused.reply(), 'refusal'), /Only the owner/);
      assert.equal(d.cards(threadId)[0]?.buttons.length, 3, 'the card stays enabled');
      const approved = d.click(threadId, 0, 'Approve', owner);
      assert.equal(await d.waitFor(() => approved.reply(), 'approval reply'), 'Approved.');
      await d.waitFor(() => d.texts(threadId).includes('Ran it.'), 'answer after the tool ran');
      const decided = d.cards(threadId)[0];
      assert.equal(decided?.buttons.length, 0, 'no buttons once decided');
      assert.match(decided?.text ?? '', /Approved/);
      assert.match(decided?.text ?? '', /owner/);
    });

    it('opens the Reject feedback form for the owner only; a stranger is refused without a form', async () => {
      d.llm.enqueue(bash('call_k2', 'rm -rf /tmp/none'), { text: 'I will not.' });
      const threadId = await d.mention(owner, 'delete things');
      await d.waitFor(() => d.cards(threadId)[0], 'approval card');
      const strangerClick = d.click(threadId, 0, 'Reject', stranger);
      assert.match(await d.waitFor(() => strangerClick.reply(), 'stranger refusal'), /Only the owner/);
      assert.equal(strangerClick.formOpened(), false, 'no form for a stranger');
      const ownerClick = d.click(threadId, 0, 'Reject', owner);
      await d.waitFor(() => ownerClick.formOpened(), 'feedback form');
      ownerClick.submitFeedback('list them first');
      await d.waitFor(() => d.texts(threadId).includes('I will not.'), 'answer after the rejection');
      assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /list them first/);
      assert.match(d.cards(threadId)[0]?.text ?? '', /Rejected/);
    });

    it('marks a queued message and visibly refuses one past the queue bound', async () => {
      d.llm.enqueue(bash('call_k3', 'echo hold'), { text: 'Held turn done.' }, { text: 'Queued answer.' });
      const threadId = await d.mention(owner, 'hold the turn');
      // The turn waits for the approval: it is busy, deterministically.
      await d.waitFor(() => d.cards(threadId)[0], 'approval card');
      const queued = d.say(owner, threadId, 'next please');
      await d.waitFor(() => d.reactions(queued).includes('queued'), 'queued reaction');
      const refused = d.say(owner, threadId, 'and one more');
      await d.waitFor(() => d.reactions(refused).includes('refused'), 'refused reaction');
      const approved = d.click(threadId, 0, 'Approve', owner);
      await d.waitFor(() => approved.reply(), 'approval reply');
      await d.waitFor(() => d.texts(threadId).includes('Queued answer.'), 'the queued message is answered');
      assert.ok(
        !JSON.stringify(d.llm.requests.map((request) => request.body)).includes('and one more'),
        'the refused message was not kept',
      );
    });

    it('holds a conversation in a DM, with an approval, until the close command or the idle time starts a new one', async () => {
      const dm = d.directPlace(owner);
      d.llm.enqueue({ text: 'Hi in private.' });
      d.sayDirect(owner, 'my favourite colour is teal');
      await d.waitFor(() => d.texts(dm).includes('Hi in private.'), 'answer in the DM');
      d.llm.enqueue(bash('call_dm1', 'echo private'), { text: 'Ran it in the DM.' });
      d.sayDirect(owner, 'run something here');
      const card = await d.waitFor(() => d.cards(dm)[0], 'approval card in the DM');
      assert.deepEqual(card.buttons, ['Approve', 'Always', 'Reject']);
      const approved = d.click(dm, 0, 'Approve', owner);
      assert.equal(await d.waitFor(() => approved.reply(), 'approval reply'), 'Approved.');
      await d.waitFor(() => d.texts(dm).includes('Ran it in the DM.'), 'answer after the tool ran');
      assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /favourite colour is teal/, 'one conversation');

      assert.match(await d.closeDirect(owner), /closed/i);
      d.llm.enqueue({ text: 'Fresh start.' });
      d.sayDirect(owner, 'hello again');
      await d.waitFor(() => d.texts(dm).includes('Fresh start.'), 'answer after the close');
      assert.doesNotMatch(JSON.stringify(d.llm.requests.at(-1)?.body), /teal/, 'a new conversation after the close');

      d.llm.enqueue({ text: 'Still here.' }, { text: 'After a quiet day.' });
      d.sayDirect(owner, 'remember the word heron');
      await d.waitFor(() => d.texts(dm).includes('Still here.'), 'answer');
      d.setClockOffset(25 * 3_600_000);
      try {
        d.sayDirect(owner, 'a day later');
        await d.waitFor(() => d.texts(dm).includes('After a quiet day.'), 'answer after the idle time');
      } finally {
        d.setClockOffset(0);
      }
      assert.doesNotMatch(
        JSON.stringify(d.llm.requests.at(-1)?.body),
        /heron/,
        'a new conversation after the idle time',
      );
    });

    it('routes replies to a notification into its workstream and answers in the DM, also after a restart', async () => {
      d.llm.enqueue({ text: 'Noted.' });
      const threadId = await d.mention(owner, 'the code word is tulip');
      await d.waitFor(() => d.texts(threadId).includes('Noted.'), 'thread answer');
      const wsId = await d.workstreamOf(threadId);
      const notification = await d.notify({ username: 'owner' }, 'Your build finished.', wsId);
      d.llm.enqueue({ text: 'The code word was tulip.' });
      const place = d.reply(owner, notification, 'what was the code word?');
      await d.waitFor(() => d.texts(place).includes('The code word was tulip.'), 'answer where the reply was written');
      const first = JSON.stringify(d.llm.requests.at(-1)?.body);
      assert.match(first, /tulip/, 'the notification’s workstream, with its history');
      assert.match(first, /what was the code word/);
      assert.ok(!d.texts(threadId).includes('The code word was tulip.'), 'not answered in the thread');

      await d.restart();
      d.llm.enqueue({ text: 'Second answer.' });
      const answer = d.textIds(place)[d.texts(place).indexOf('The code word was tulip.')] ?? '';
      assert.equal(d.reply(owner, answer, 'and after a restart?'), place);
      await d.waitFor(() => d.texts(place).includes('Second answer.'), 'second answer after the restart');
      assert.match(JSON.stringify(d.llm.requests.at(-1)?.body), /The code word was tulip/, 'the exchange continues');
    });

    it('refuses a reply by someone else and a reply to an expired notification, without asking the model', async () => {
      d.llm.enqueue({ text: 'Ready.' });
      const threadId = await d.mention(owner, 'watch the deploy');
      await d.waitFor(() => d.texts(threadId).includes('Ready.'), 'thread answer');
      const wsId = await d.workstreamOf(threadId);
      const requestsBefore = d.llm.requests.length;
      const inChannel = await d.notify('channel', 'Deploy finished.', wsId);
      const strangerPlace = d.reply(stranger, inChannel, 'let me in');
      await d.waitFor(
        () => d.texts(strangerPlace).some((text) => /no longer active/.test(text)),
        'refusal of the stranger',
      );
      const old = await d.notify({ username: 'owner' }, 'An old notice.', wsId);
      d.setClockOffset(8 * 86_400_000);
      try {
        const place = d.reply(owner, old, 'is this still on?');
        await d.waitFor(
          () => d.texts(place).some((text) => /no longer active/.test(text)),
          'refusal of the expired reply',
        );
      } finally {
        d.setClockOffset(0);
      }
      assert.equal(d.llm.requests.length, requestsBefore, 'the model was not asked');
    });

    it('passes an image in a thread to the model as an image part, shrunk to the provider limit, and saves the original', async () => {
      d.llm.enqueue({ text: 'Ready.' });
      const threadId = await d.mention(owner, 'I will send a picture');
      await d.waitFor(() => d.texts(threadId).includes('Ready.'), 'first answer');
      const png = await pngOf(2400, 1200);
      d.llm.enqueue({ text: 'A red rectangle.' });
      d.sayWithFiles(owner, threadId, 'what is in this picture?', [
        { name: 'red.png', contentType: 'image/png', bytes: png },
      ]);
      await d.waitFor(() => d.texts(threadId).includes('A red rectangle.'), 'answer about the image');
      const body = d.llm.requests.at(-1)?.body;
      const images = imagesIn(body);
      assert.equal(images.length, 1, 'one image part');
      assert.equal(images[0]?.mediaType, 'image/png');
      const seen = await sharp(images[0]?.bytes).metadata();
      assert.deepEqual([seen.width, seen.height], [1568, 784], 'resized to the 1568 px long edge');
      assert.match(lastUserText(body), /what is in this picture\?/);
      assert.match(lastUserText(body), /attachments\/red\.png/);
      assert.deepEqual(await d.workspaceFile(threadId, 'attachments/red.png'), png, 'the original is in the workspace');
      assert.ok(d.fileRequests().length >= 1, 'downloaded from the platform file host');
    });

    it('saves a PDF into the workspace and names it in the message', async () => {
      d.llm.enqueue({ text: 'Got the PDF.' });
      const threadId = await d.mention(owner, 'a document follows');
      d.llm.enqueue({ text: 'I can read it with read_file.' });
      await d.waitFor(() => d.texts(threadId).includes('Got the PDF.'), 'first answer');
      d.sayWithFiles(owner, threadId, 'summarise this', [
        { name: 'Q3 report.pdf', contentType: 'application/pdf', bytes: PDF_BYTES },
      ]);
      await d.waitFor(() => d.texts(threadId).includes('I can read it with read_file.'), 'answer about the PDF');
      const body = d.llm.requests.at(-1)?.body;
      assert.equal(imagesIn(body).length, 0);
      assert.match(lastUserText(body), /summarise this/);
      assert.match(lastUserText(body), /attachments\/Q3 report\.pdf \(application\/pdf/);
      assert.deepEqual(await d.workspaceFile(threadId, 'attachments/Q3 report.pdf'), PDF_BYTES);
    });

    it('names an oversize file, another host, a redirect off the platform and a web page in one notice, and keeps the text', async () => {
      d.llm.enqueue({ text: 'Send them.' });
      const threadId = await d.mention(owner, 'files follow');
      await d.waitFor(() => d.texts(threadId).includes('Send them.'), 'first answer');
      const elsewhere = foreign.put('/elsewhere.png', {
        name: 'elsewhere.png',
        contentType: 'image/png',
        bytes: await pngOf(10, 10),
      });
      const files: FakeFile[] = [
        {
          name: 'huge.bin',
          contentType: 'application/octet-stream',
          bytes: Buffer.from('small really'),
          declaredSize: 5 * 1024 * 1024,
        },
        { name: 'elsewhere.png', contentType: 'image/png', bytes: Buffer.alloc(0), url: elsewhere },
        { name: 'moved.pdf', contentType: 'application/pdf', bytes: PDF_BYTES, redirectTo: elsewhere },
        { name: 'login.pdf', contentType: 'application/pdf', bytes: PDF_BYTES, servedType: 'text/html' },
        { name: 'fine.txt', contentType: 'text/plain', bytes: Buffer.from('plain text') },
      ];
      d.llm.enqueue({ text: 'Only the text file arrived.' });
      d.sayWithFiles(owner, threadId, 'please look at all of these', files);
      await d.waitFor(
        () => d.texts(threadId).includes('Only the text file arrived.'),
        'answer despite the refused files',
      );
      const notice = d.texts(threadId).find((text) => text.includes('Some attachments were not used'));
      assert.ok(notice, 'one notice in the thread');
      assert.match(notice, /huge\.bin: too large \(5\.0 MB; the limit is 1\.0 MB\)/);
      assert.match(notice, /elsewhere\.png: it is not hosted by the platform/);
      assert.match(notice, /moved\.pdf: the file host redirected to another host/);
      assert.match(notice, /login\.pdf: the file host sent a web page instead of the file/);
      assert.doesNotMatch(notice, /fine\.txt/);
      const text = lastUserText(d.llm.requests.at(-1)?.body);
      assert.match(text, /please look at all of these/);
      assert.match(text, /\[Attachment huge\.bin was not used: too large/);
      assert.match(text, /attachments\/fine\.txt \(text\/plain/);
      assert.deepEqual(foreign.store.requests, [], 'nothing was fetched from the other host');
      assert.equal(await d.workspaceFile(threadId, 'attachments/login.pdf'), undefined, 'a refused file is not saved');
    });

    it('slows down on rate limits and still shows the complete answer', async () => {
      const words = Array.from({ length: 40 }, (_, i) => `r${i} `);
      d.llm.enqueue({ text: words, delayMs: 15 });
      const limited = d.rateLimitEdits(2);
      const threadId = await d.mention(owner, 'count');
      await d.waitFor(
        () => d.texts(threadId).some((text) => text.trim() === words.join('').trim()),
        'complete answer',
        30_000,
      );
      assert.ok(limited() >= 1, 'the platform answered with a rate limit at least once');
    });

    it('switches the thread’s model mid-thread; the next turn calls the other model', async () => {
      d.llm.enqueue({ text: 'On the first model.' });
      const threadId = await d.mention(owner, 'which model?');
      await d.waitFor(() => d.texts(threadId).includes('On the first model.'), 'first answer');
      assert.equal(modelOf(d.llm.requests.at(-1)?.body), 'fake-model');
      assert.match(await d.command(owner, threadId, 'model'), /uses `fake`[\s\S]*`other` \(other-model\)/);
      assert.match(
        await d.command(owner, threadId, 'model', 'nope'),
        /Unknown model "nope"\. Available models: `fake` \(fake-model\), `other` \(other-model\)/,
      );
      assert.match(await d.command(owner, threadId, 'model', 'other'), /now uses `other`/);
      d.llm.enqueue({ text: 'On the other model.' });
      d.say(owner, threadId, 'and now?');
      await d.waitFor(() => d.texts(threadId).includes('On the other model.'), 'answer from the other model');
      assert.equal(modelOf(d.llm.requests.at(-1)?.body), 'other-model');
      assert.match(await d.command(owner, threadId, 'status'), /Model: other/);
    });

    it('shows Stop while the turn runs: a stranger is refused, the owner’s click cancels it and the button goes', async () => {
      d.llm.enqueue({ text: ['Working on it', ' for a long time'], hang: true });
      const threadId = await d.mention(owner, 'take your time');
      await d.waitFor(() => d.hasStop(threadId), 'Stop button on the live message');
      const refused = d.clickStop(threadId, stranger);
      assert.match(await d.waitFor(() => refused.reply(), 'stranger refusal'), /Only the owner/);
      assert.ok(d.hasStop(threadId), 'the button stays for the owner');
      const stopped = d.clickStop(threadId, owner);
      assert.match(await d.waitFor(() => stopped.reply(), 'stop reply'), /Cancelling/);
      await d.waitFor(() => d.texts(threadId).some((text) => /Cancelled/.test(text)), 'cancelled notice');
      await d.waitFor(() => !d.hasStop(threadId), 'Stop button removed');
      assert.ok(d.texts(threadId).includes('Working on it for a long time'), 'the partial answer stays');
    });

    it('sent only request bodies the platform’s API description accepts', () => {
      assert.deepEqual(d.protocolProblems(), []);
    });
  });
}

function modelOf(body: unknown): unknown {
  return (body as { model?: unknown } | undefined)?.model;
}

/** Inbound limits on a gateway of their own (the rate is per user and window, so it would starve the main suite). */
function limitsContract<U>(
  platform: string,
  start: (flags: Record<string, unknown>) => Promise<ContractDriver<U>>,
): void {
  describe(`ChannelAdapter contract: ${platform} inbound limits`, () => {
    let d: ContractDriver<U>;
    let flooder: U;
    before(async () => {
      d = await start(LIMIT_FLAGS);
      flooder = await d.linkedUser(platform === 'slack' ? 'U0FLOODER' : '400000000000000093', 'flooder');
    });
    after(async () => {
      await d.close();
    });

    it('refuses a message over the length cap with a private notice, and sends nothing of it', async () => {
      d.llm.enqueue({ text: 'Short one answered.' });
      const threadId = await d.mention(flooder, 'short');
      await d.waitFor(() => d.texts(threadId).includes('Short one answered.'), 'first answer');
      const long = d.say(flooder, threadId, 'x'.repeat(501));
      await d.waitFor(
        () =>
          d
            .notices(flooder)
            .some((text) => /Message too long \(501 chars\)\. Please keep messages under 500 characters\./.test(text)),
        'length notice',
      );
      await d.waitFor(() => d.reactions(long).includes('refused'), 'refused reaction');
      assert.equal(d.llm.requests.length, 1, 'the long message started no turn');
    });

    it('11 messages in 60 s: 10 turns and exactly one notice; a 12th is refused without a second notice', async () => {
      // The length test above used one slot (its refused message did not).
      d.llm.enqueue(...Array.from({ length: 9 }, (_, i) => ({ text: `Answer ${i + 2}.` })));
      const before = d.llm.requests.length;
      const threadId = await d.mention(flooder, 'message 2');
      await d.waitFor(() => d.texts(threadId).includes('Answer 2.'), 'answer 2');
      const ids = Array.from({ length: 9 }, (_, i) => d.say(flooder, threadId, `message ${i + 3}`));
      await d.waitFor(
        () => d.notices(flooder).some((text) => /sending messages too fast\. Limit is 10 per 60 seconds\./.test(text)),
        'rate notice',
      );
      await d.waitFor(() => d.texts(threadId).includes('Answer 10.'), 'every admitted message answered', 30_000);
      assert.equal(d.llm.requests.length - before, 9, 'nine more turns (ten in all)');
      await d.waitFor(() => d.reactions(ids.at(-1) ?? '').includes('refused'), 'the 11th is marked refused');
      const twelfth = d.say(flooder, threadId, 'message 12');
      await d.waitFor(() => d.reactions(twelfth).includes('refused'), 'the 12th is marked refused');
      assert.equal(d.notices(flooder).filter((text) => /too fast/.test(text)).length, 1, 'exactly one rate notice');
      assert.ok(
        !JSON.stringify(d.llm.requests.map((request) => request.body)).includes('message 11'),
        'the refused message was not sent',
      );
    });
  });
}
