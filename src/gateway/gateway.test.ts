/**
 * Fast gateway tests on the recording in-memory adapter (test/fakes/recording-adapter.ts) with the real agent core and
 * a scripted model: routing, the one queue bound, approvals decided by the agent's rules, commands.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { textParts, toolCallParts } from '../../test/fakes/fake-model-provider.js';
import { person, type RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../../test/helpers/recording-gateway.js';

const CHANNEL = 'general';

describe('gateway on the recording adapter', () => {
  let fixture: RecordingGateway;
  let db: RecordingGateway['db'];
  let model: RecordingGateway['model'];
  let adapter: RecordingAdapter;
  const owner = person('p-owner', 'Owner Display');
  const stranger = person('p-stranger');
  const unlinked = person('p-unlinked');

  before(async () => {
    fixture = await startRecordingGateway('sp-gw-unit-', { 'agent.max_queued_messages': 1 }, { editIntervalMs: 10 });
    ({ db, model, adapter } = fixture);
    for (const [who, name] of [
      [owner, 'owner'],
      [stranger, 'stranger'],
    ] as const) {
      const user = await db.stores.users.createUser(name);
      await db.stores.users.link('fake', who.id, user.userId);
    }
  });
  after(() => fixture.close());

  const mention = (user = owner, text = 'hello') =>
    adapter.deliver({
      type: 'message',
      user,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: `msg-${Math.random()}`,
      text,
      mentioned: true,
    });
  const latestThread = (): string => adapter.threads.at(-1)?.id ?? '';

  it('opens a thread for a mention, names its requester, and answers in it', async () => {
    model.enqueue({ parts: textParts('Hi there.') });
    await mention(owner, 'hello');
    const thread = adapter.threads.at(-1);
    assert.equal(thread?.origin.requester?.id, owner.id);
    await until(() => adapter.texts(thread?.id).includes('Hi there.'), 'answer');
  });

  it('names attachments a platform cannot pass on in one notice and still sends the text', async () => {
    model.enqueue({ parts: textParts('Text received.') });
    const attachments = [
      { name: 'notes.txt', url: 'https://files.example/notes.txt', size: 10, contentType: 'text/plain' },
    ];
    await adapter.deliver({
      type: 'message',
      user: owner,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: 'msg-files',
      text: 'with a file',
      mentioned: true,
      attachments,
    });
    const thread = latestThread();
    await until(() => adapter.texts(thread).includes('Text received.'), 'answer');
    assert.deepEqual(adapter.notices(thread), ['attachments-skipped']);
    const sent = model.requests.at(-1)?.messages.at(-1);
    assert.match(
      typeof sent?.content === 'string' ? sent.content : '',
      /^with a file\n\n\[Attachment notes\.txt was not used: this platform does not pass attachments on\.\]$/,
    );
  });

  it('names a thread started by a files-only mention after the file, without inventing a greeting', async () => {
    model.enqueue({ parts: textParts('Files only.') });
    const attachments = [
      { name: 'screenshot.png', url: 'https://files.example/s.png', size: 10, contentType: 'image/png' },
    ];
    await adapter.deliver({
      type: 'message',
      user: owner,
      conversation: { kind: 'channel', channelId: CHANNEL },
      messageId: 'msg-only-files',
      text: '',
      mentioned: true,
      attachments,
    });
    const thread = adapter.threads.at(-1);
    assert.equal(thread?.name, 'screenshot.png');
    await until(() => adapter.texts(thread?.id).includes('Files only.'), 'answer');
    const sent = model.requests.at(-1)?.messages.at(-1);
    assert.match(typeof sent?.content === 'string' ? sent.content : '', /^\[Attachment screenshot\.png was not used/);
  });

  it('hints unlinked users to link, with the adapter’s own command name', async () => {
    await mention(unlinked);
    assert.deepEqual(adapter.notices(CHANNEL), ['link-hint']);
  });

  it('queues one message behind a busy turn and refuses the next one (the workstream’s bound)', async () => {
    model.enqueue(
      { parts: [{ type: 'text-delta', text: 'working' }], hang: true },
      { parts: textParts('Second answer.') },
    );
    await mention(owner, 'long job');
    const threadId = latestThread();
    const say = (messageId: string, text: string) =>
      adapter.deliver({
        type: 'message',
        user: owner,
        conversation: { kind: 'thread', channelId: threadId },
        messageId,
        text,
        mentioned: false,
      });
    await say('q1', 'next');
    await say('q2', 'one too many');
    assert.deepEqual(
      adapter.reactions.filter((r) => r.channelId === threadId).map((r) => [r.messageId, r.reaction]),
      [
        ['q1', 'queued'],
        ['q2', 'refused'],
      ],
    );
    const cancel = await adapter.deliver({
      type: 'command',
      name: 'cancel',
      user: owner,
      conversation: { kind: 'thread', channelId: threadId },
      args: {},
    });
    assert.deepEqual(cancel.replies, ['Cancelling the running turn.']);
    await until(() => adapter.texts(threadId).includes('Second answer.'), 'the queued message answered');
    assert.ok(!JSON.stringify(model.requests).includes('one too many'), 'the refused message was not kept');
  });

  it('lets only the owner open the feedback form and shows the agent’s decision on the card', async () => {
    model.enqueue(
      { parts: toolCallParts([{ id: 'c1', name: 'bash', args: { command: 'echo hi' } }]) },
      { parts: textParts('Done.') },
    );
    await mention(owner, 'run');
    const threadId = latestThread();
    const card = await until(() => adapter.approvalCards(threadId)[0], 'card');
    const click = (user: typeof owner, name: 'approve' | 'reject', feedbackForm = false) =>
      adapter.deliver({ type: 'action', name, approvalId: card.approvalId, user, feedback: null }, { feedbackForm });
    const refused = await click(stranger, 'reject', true);
    assert.deepEqual(refused.replies, ['Only the owner of this workstream can decide this.']);
    assert.equal(refused.feedbackOpened, 0);
    const unknown = await click(unlinked, 'approve');
    assert.match(unknown.replies[0] ?? '', /not linked\. Use `\/link` first/);
    const form = await click(owner, 'reject', true);
    assert.equal(form.feedbackOpened, 1);
    assert.deepEqual(form.replies, []);
    assert.deepEqual((await click(owner, 'approve')).replies, ['Approved.']);
    await until(() => adapter.texts(threadId).includes('Done.'), 'answer after the tool');
    const shown = adapter.approvalCards(threadId)[0]?.outcome;
    assert.deepEqual(shown, { status: 'approved', decidedBy: 'owner', feedback: null });
    assert.match((await click(owner, 'approve')).replies[0] ?? '', /already decided \(approved by you\)/);
  });

  it('stores a mention that reaches it while it stops (the platform delivered it once)', async () => {
    const stopping = await startRecordingGateway('sp-gw-stopping-', {}, { editIntervalMs: 10 });
    try {
      const user = await stopping.db.stores.users.createUser('late');
      await stopping.db.stores.users.link('fake', owner.id, user.userId);
      stopping.model.enqueue({ parts: textParts('Answered after all.') });
      const stopped = stopping.gateway.stop();
      await stopping.adapter.deliver({
        type: 'message',
        user: owner,
        conversation: { kind: 'channel', channelId: CHANNEL },
        messageId: 'msg-during-stop',
        text: 'sent as the gateway stops',
        mentioned: true,
      });
      await stopped;
      const [workstream] = await stopping.db.stores.workstreams.list({ userId: user.userId });
      const history = workstream ? await stopping.db.stores.conversations.load(workstream.wsId) : [];
      assert.ok(
        history.some((message) => JSON.stringify(message).includes('sent as the gateway stops')),
        'the message is in the history',
      );
    } finally {
      await stopping.close();
    }
  });

  it('closes a thread on /close: the notice, the archive, and a closed reply afterwards', async () => {
    model.enqueue({ parts: textParts('Ok.') });
    await mention(owner, 'short');
    const threadId = latestThread();
    await until(() => adapter.texts(threadId).includes('Ok.'), 'answer');
    const conversation = { kind: 'thread', channelId: threadId } as const;
    const strangerClose = await adapter.deliver({
      type: 'command',
      name: 'close',
      user: stranger,
      conversation,
      args: {},
    });
    assert.deepEqual(strangerClose.replies, ['Only the owner of this workstream can do that.']);
    const closed = await adapter.deliver({ type: 'command', name: 'close', user: owner, conversation, args: {} });
    assert.deepEqual(closed.replies, ['Workstream closed.']);
    assert.ok(adapter.notices(threadId).includes('closed'));
    assert.deepEqual(adapter.archived.at(-1), threadId);
    const status = await adapter.deliver({ type: 'command', name: 'status', user: owner, conversation, args: {} });
    assert.deepEqual(status.replies, ['This workstream is closed.']);
  });
});
