import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkstreamManager } from '../agent/workstream-api.js';
import type { FormSpec, InboundEvent } from '../channels/channel-adapter.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { createSilentLogger } from '../shared/logger.js';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { ElicitationDesk, type ElicitationAnswer, type ElicitationRequest } from './elicitations.js';
import { Router } from './router.js';

type FormEvent = Extract<InboundEvent, { type: 'form' }>;

/** A form event whose responder records what the user saw. */
function formEvent(
  formId: string,
  userId: string,
  action: FormEvent['action'],
  values: Record<string, string> = {},
  canShow = true,
) {
  const seen: { replies: string[]; forms: FormSpec[] } = { replies: [], forms: [] };
  const event: FormEvent = {
    type: 'form',
    action,
    formId,
    values,
    user: { id: userId, name: `user-${userId}` },
    respond: {
      reply: (text) => {
        seen.replies.push(text);
        return Promise.resolve();
      },
      showForm: (form) => {
        if (canShow) seen.forms.push(form);
        return Promise.resolve(canShow);
      },
    },
  };
  return { event, seen };
}

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Name' }, count: { type: 'integer', title: 'Count', minimum: 1 } },
  required: ['name'],
};

describe('ElicitationDesk', () => {
  let db: TestStores;
  let adapter: RecordingAdapter;
  let desk: ElicitationDesk;
  let clock = Date.now();
  let wsId = '';
  let counter = 0;

  before(async () => {
    db = await createTestStores();
    const { stores } = db;
    adapter = new RecordingAdapter({ platform: 'discord' });
    const router = new Router(stores, {} as WorkstreamManager);
    desk = new ElicitationDesk({
      stores,
      router,
      logger: createSilentLogger(),
      adapters: new Map([['discord', adapter]]),
      signal: new AbortController().signal,
      now: () => clock,
    });
    const owner = await stores.users.createUser('owner');
    const stranger = await stores.users.createUser('stranger');
    const admin = await stores.users.createUser('admin', { isAdmin: true });
    await stores.users.link('discord', 'u-owner', owner.userId);
    await stores.users.link('discord', 'u-stranger', stranger.userId);
    await stores.users.link('discord', 'u-admin', admin.userId);
    wsId = 'a'.repeat(32);
    await stores.workstreams.create({ wsId, userId: owner.userId, name: 'test', modelAlias: 'fake' });
    await stores.routes.putRoute({ channelType: 'discord', channelId: 'thread-1', wsId });
  });
  after(async () => {
    // Forms still open stop looking for answers from other instances before the database goes.
    desk.stop();
    await db.close();
  });

  function request(schema: Record<string, unknown> = SCHEMA, workstreamIds = ['not-routed', wsId]): ElicitationRequest {
    counter += 1;
    return {
      id: `form${counter}`,
      server: 'forms',
      message: 'Who are you?',
      requestedSchema: schema,
      workstreamIds,
      expiresAt: new Date(clock + 60_000).toISOString(),
    };
  }

  /** Starts a request and waits for its card; the answer is wrapped so awaiting the card does not await the answer. */
  async function posted(
    req: ElicitationRequest,
    signal = new AbortController().signal,
  ): Promise<{ answer: Promise<ElicitationAnswer> }> {
    const answer = desk.handle(req, signal);
    for (let i = 0; i < 500 && !adapter.cardFor(req.id); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(adapter.cardFor(req.id), 'card posted');
    return { answer };
  }

  it('posts the card in the routed thread and resolves accept with converted values from the owner', async () => {
    const req = request();
    const { answer } = await posted(req);
    const entry = adapter.shown.find((shown) => shown.message.kind === 'form' && shown.message.card.formId === req.id);
    assert.equal(entry?.channelId, 'thread-1');
    assert.deepEqual(adapter.cardFor(req.id)?.fieldLabels, ['Name', 'Count']);
    const open = formEvent(req.id, 'u-owner', 'open');
    await desk.onForm(adapter, open.event);
    assert.deepEqual(
      open.seen.forms[0]?.fields.map((f) => f.label),
      ['Name', 'Count'],
    );
    const submit = formEvent(req.id, 'u-owner', 'submit', { f0: 'Ada', f1: '3' });
    await desk.onForm(adapter, submit.event);
    assert.deepEqual(await answer, { action: 'accept', content: { name: 'Ada', count: 3 } });
    assert.deepEqual(submit.seen.replies, ['Answer sent.']);
    assert.deepEqual(adapter.cardFor(req.id)?.outcome, { status: 'answered', decidedBy: 'user-u-owner' });
    const late = formEvent(req.id, 'u-owner', 'decline');
    await desk.onForm(adapter, late.event);
    assert.deepEqual(late.seen.replies, ['This request was already answered.']);
  });

  it('refuses strangers and unlinked users, keeps the card open after invalid input, and lets an admin decline', async () => {
    const req = request();
    const { answer } = await posted(req);
    for (const [user, text] of [
      ['u-stranger', /Only the owner/],
      ['u-nobody', /not linked/],
    ] as const) {
      const click = formEvent(req.id, user, 'open');
      await desk.onForm(adapter, click.event);
      assert.match(click.seen.replies[0] ?? '', text);
      assert.equal(click.seen.forms.length, 0);
    }
    const invalid = formEvent(req.id, 'u-owner', 'submit', { f0: '', f1: 'zero' });
    await desk.onForm(adapter, invalid.event);
    assert.match(invalid.seen.replies[0] ?? '', /Name is required[\s\S]*Count: enter a whole number/);
    assert.equal(adapter.cardFor(req.id)?.outcome.status, 'pending');
    const reopen = formEvent(req.id, 'u-owner', 'open');
    await desk.onForm(adapter, reopen.event);
    assert.equal(reopen.seen.forms[0]?.fields[1]?.value, 'zero', 'the draft is pre-filled');
    const decline = formEvent(req.id, 'u-admin', 'decline');
    await desk.onForm(adapter, decline.event);
    assert.deepEqual(await answer, { action: 'decline' });
    assert.deepEqual(adapter.cardFor(req.id)?.outcome, { status: 'declined', decidedBy: 'user-u-admin' });
  });

  it('asks the user to click again when the form could not be opened in time', async () => {
    const req = request();
    const { answer } = await posted(req);
    const slow = formEvent(req.id, 'u-owner', 'open', {}, false);
    await desk.onForm(adapter, slow.event);
    assert.match(slow.seen.replies[0] ?? '', /click Answer again/);
    await desk.onForm(adapter, formEvent(req.id, 'u-owner', 'decline').event);
    assert.equal((await answer).action, 'decline');
  });

  it('declines at once when no workstream has a thread, or the form cannot be shown', async () => {
    const before = adapter.shown.length;
    assert.deepEqual(await desk.handle(request(SCHEMA, ['nowhere']), new AbortController().signal), {
      action: 'decline',
    });
    assert.equal(adapter.shown.length, before, 'nothing posted');
    const properties = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`p${i}`, { type: 'string' }]));
    const req = request({ type: 'object', properties });
    assert.deepEqual(await desk.handle(req, new AbortController().signal), { action: 'decline' });
    const card = adapter.cardFor(req.id);
    assert.equal(card?.outcome.status, 'unsupported');
    assert.match(card?.outcome.status === 'unsupported' ? card.outcome.reason : '', /7 fields/);
  });

  it('marks the card expired when the source gives up at the deadline, and answers late or unknown clicks privately', async () => {
    const req = request();
    const controller = new AbortController();
    const { answer } = await posted(req, controller.signal);
    clock += 61_000;
    const tooLate = formEvent(req.id, 'u-owner', 'submit', { f0: 'Ada' });
    await desk.onForm(adapter, tooLate.event);
    assert.deepEqual(tooLate.seen.replies, ['This request has expired.']);
    controller.abort();
    assert.deepEqual(await answer, { action: 'decline' });
    for (let i = 0; i < 200 && adapter.cardFor(req.id)?.outcome.status === 'pending'; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(adapter.cardFor(req.id)?.outcome.status, 'expired');
    const unknown = formEvent('f-from-before-a-restart', 'u-owner', 'open');
    await desk.onForm(adapter, unknown.event);
    assert.deepEqual(unknown.seen.replies, ['This request has expired.']);
  });

  it('shows a withdrawn request when the server cancels early, and declines open requests on stop', async () => {
    const withdrawn = request();
    const controller = new AbortController();
    const { answer: first } = await posted(withdrawn, controller.signal);
    controller.abort();
    assert.deepEqual(await first, { action: 'decline' });
    for (let i = 0; i < 200 && adapter.cardFor(withdrawn.id)?.outcome.status === 'pending'; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(adapter.cardFor(withdrawn.id)?.outcome.status, 'cancelled');
    const { answer: open } = await posted(request());
    desk.stop();
    assert.deepEqual(await open, { action: 'decline' });
  });
});
