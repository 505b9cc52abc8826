/**
 * The ChannelAdapter contract: what every platform must do the same, checked end to end through the platform's real
 * client library (discord.js, bolt) against its fake, with the real gateway and agent in between. A platform joins
 * by writing a `ContractDriver` (test/integration/channel-adapter.<platform>.test.ts). Behaviour written once in the
 * gateway can only drift per platform in the adapter; this suite is where that shows.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FakeLlmServer } from '../fakes/fake-llm-server.js';

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
  /** Polls until `probe` is truthy. */
  waitFor<T>(probe: () => T | undefined | false | null, what: string, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const bash = (id: string, command: string) => ({ toolCalls: [{ id, name: 'bash', arguments: JSON.stringify({ command }) }] });

/** Flags every driver boots its gateway with (a small queue bound, so the refusal is reachable). */
export const CONTRACT_FLAGS = { 'agent.max_queued_messages': 1 };

export function channelAdapterContract<U>(platform: string, start: () => Promise<ContractDriver<U>>): void {
  describe(`ChannelAdapter contract: ${platform}`, () => {
    let d: ContractDriver<U>;
    let owner: U;
    let stranger: U;
    before(async () => {
      d = await start();
      owner = await d.linkedUser(platform === 'slack' ? 'U0CONOWNER' : '400000000000000091', 'owner');
      stranger = await d.linkedUser(platform === 'slack' ? 'U0CONSTRANGER' : '400000000000000092', 'stranger');
    });
    after(async () => {
      await d.close();
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
      assert.ok(!JSON.stringify(d.llm.requests.map((request) => request.body)).includes('and one more'), 'the refused message was not kept');
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
      assert.doesNotMatch(JSON.stringify(d.llm.requests.at(-1)?.body), /heron/, 'a new conversation after the idle time');
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
      await d.waitFor(() => d.texts(strangerPlace).some((text) => /no longer active/.test(text)), 'refusal of the stranger');
      const old = await d.notify({ username: 'owner' }, 'An old notice.', wsId);
      d.setClockOffset(8 * 86_400_000);
      try {
        const place = d.reply(owner, old, 'is this still on?');
        await d.waitFor(() => d.texts(place).some((text) => /no longer active/.test(text)), 'refusal of the expired reply');
      } finally {
        d.setClockOffset(0);
      }
      assert.equal(d.llm.requests.length, requestsBefore, 'the model was not asked');
    });

    it('slows down on rate limits and still shows the complete answer', async () => {
      const words = Array.from({ length: 40 }, (_, i) => `r${i} `);
      d.llm.enqueue({ text: words, delayMs: 15 });
      const limited = d.rateLimitEdits(2);
      const threadId = await d.mention(owner, 'count');
      await d.waitFor(() => d.texts(threadId).some((text) => text.trim() === words.join('').trim()), 'complete answer', 30_000);
      assert.ok(limited() >= 1, 'the platform answered with a rate limit at least once');
    });

    it('sent only request bodies the platform’s API description accepts', () => {
      assert.deepEqual(d.protocolProblems(), []);
    });
  });
}
