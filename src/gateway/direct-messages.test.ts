/**
 * Fast gateway tests of direct messages and notification replies on the recording adapter, with the real agent core
 * and a scripted model: the rules behind the end-to-end tests (who may reply, for how long, what is tracked).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { textParts } from '../../test/fakes/fake-model-provider.js';
import { person, type RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { startRecordingGateway, until, type RecordingGateway } from '../../test/helpers/recording-gateway.js';

const DAY_MS = 86_400_000;

describe('direct messages and notification replies on the recording adapter', () => {
  let fixture: RecordingGateway;
  let db: RecordingGateway['db'];
  let runtime: RecordingGateway['runtime'];
  let model: RecordingGateway['model'];
  let adapter: RecordingAdapter;
  let ownerId = '';
  let offset = 0;
  const owner = person('p-owner');
  const other = person('p-other');
  const unlinked = person('p-unlinked');

  before(async () => {
    fixture = await startRecordingGateway(
      'sp-gw-dm-',
      { 'gateway.notify_reply_days': 3 },
      { editIntervalMs: 10, now: () => Date.now() + offset },
    );
    ({ db, runtime, model, adapter } = fixture);
    ownerId = (await db.stores.users.createUser('owner')).userId;
    await db.stores.users.link('fake', owner.id, ownerId);
    await db.stores.users.link('fake', other.id, (await db.stores.users.createUser('other')).userId);
  });
  after(() => fixture.close());

  const dm = (user: typeof owner, channelId: string, text: string, replyTo?: string) =>
    adapter.deliver({
      type: 'message',
      user,
      conversation: { kind: 'direct', channelId },
      messageId: `m-${Math.random()}`,
      text,
      mentioned: true,
      replyTo,
    });
  /** A workstream of the owner and a notification of it posted into `channelId` for `recipient`. */
  async function notified(channelId: string, recipient: string): Promise<{ wsId: string; messageId: string }> {
    const ws = await runtime.manager.create({ ownerUserId: ownerId, name: 'notified' });
    const messageId = await adapter.post(channelId, { kind: 'text', text: 'Your job finished.' });
    await db.stores.notifyDeliveries.record({ wsId: ws.wsId, channelType: 'fake', channelId, messageId, recipient });
    return { wsId: ws.wsId, messageId };
  }

  it('routes the recipient’s reply into the workstream and records the answer, so a reply to it continues', async () => {
    const { wsId, messageId } = await notified('dm-owner', owner.id);
    model.enqueue({ parts: textParts('Answer to the reply.') }, { parts: textParts('Answer two.') });
    await dm(owner, 'dm-owner', 'tell me more', messageId);
    await until(() => adapter.texts('dm-owner').includes('Answer to the reply.'), 'answer');
    const answer = adapter.shown.find(
      (shown) => shown.message.kind === 'text' && shown.message.text === 'Answer to the reply.',
    );
    assert.equal(
      (await db.stores.notifyDeliveries.findByMessage('fake', answer?.id ?? ''))?.wsId,
      wsId,
      'the answer is tracked',
    );
    await dm(owner, 'dm-owner', 'and then?', answer?.id);
    await until(() => adapter.texts('dm-owner').includes('Answer two.'), 'second answer');
    assert.equal(await db.stores.routes.getRoute('fake', 'dm-owner'), undefined, 'no DM conversation was opened');
  });

  it('refuses a reply by someone other than the recipient, to a closed workstream, or after notify_reply_days', async () => {
    const requests = model.requests.length;
    const first = await notified('dm-a', owner.id);
    await dm(other, 'dm-a', 'not mine', first.messageId);
    assert.deepEqual(adapter.notices('dm-a'), ['notification-inactive']);
    const closed = await notified('dm-b', owner.id);
    await runtime.manager.close(closed.wsId, 'test');
    await dm(owner, 'dm-b', 'still there?', closed.messageId);
    assert.deepEqual(adapter.notices('dm-b'), ['notification-inactive']);
    const old = await notified('dm-c', owner.id);
    offset = 3 * DAY_MS + 60_000;
    try {
      await dm(owner, 'dm-c', 'too late?', old.messageId);
    } finally {
      offset = 0;
    }
    assert.deepEqual(adapter.notices('dm-c'), ['notification-inactive']);
    assert.equal(model.requests.length, requests, 'the model was not asked');
  });

  it('takes a channel notification’s reply from the workstream owner only, and hints an unlinked recipient', async () => {
    const channel = await notified('chan', '');
    await adapter.deliver({
      type: 'message',
      user: other,
      conversation: { kind: 'channel', channelId: 'chan' },
      messageId: 'x1',
      text: 'me too',
      mentioned: false,
      replyTo: channel.messageId,
    });
    assert.deepEqual(adapter.notices('chan'), ['notification-inactive']);
    const direct = await notified('dm-u', unlinked.id);
    await dm(unlinked, 'dm-u', 'hello?', direct.messageId);
    assert.deepEqual(adapter.notices('dm-u'), ['link-hint']);
  });

  it('keeps a DM conversation until /close, which posts the notice without archiving the DM', async () => {
    model.enqueue({ parts: textParts('DM one.') }, { parts: textParts('DM two.') });
    await dm(owner, 'dm-conv', 'first');
    await until(() => adapter.texts('dm-conv').includes('DM one.'), 'first answer');
    const before = (await db.stores.routes.getRoute('fake', 'dm-conv'))?.wsId;
    const closed = await adapter.deliver({
      type: 'command',
      name: 'close',
      user: owner,
      conversation: { kind: 'direct', channelId: 'dm-conv' },
      args: {},
    });
    assert.deepEqual(closed.replies, ['Workstream closed.']);
    assert.ok(adapter.notices('dm-conv').includes('closed'));
    assert.ok(!adapter.archived.includes('dm-conv'));
    await dm(owner, 'dm-conv', 'second');
    await until(() => adapter.texts('dm-conv').includes('DM two.'), 'second answer');
    const after = (await db.stores.routes.getRoute('fake', 'dm-conv'))?.wsId;
    assert.ok(before && after && before !== after, 'a new workstream after the close');
  });
});
