/**
 * A form opened by instance A is answered through instance B (ADR 0052): two elicitation desks on one database (the
 * PostgreSQL of SANDPIPER_TEST_PG_URL when set, else one SQLite file), each with its own adapter. The submission that
 * lands on B is checked there and reaches the call waiting on A, whose card shows the answer; a late click on either
 * instance is told it was answered.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkstreamManager } from '../agent/workstream-api.js';
import type { FormSpec, InboundEvent } from '../channels/channel-adapter.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import { createSilentLogger } from '../shared/logger.js';
import { createTestStores, testPostgresUrl, type TestStores } from '../../test/helpers/test-stores.js';
import { ElicitationDesk, type ElicitationRequest } from './elicitations.js';
import { Router } from './router.js';

type FormEvent = Extract<InboundEvent, { type: 'form' }>;

function formEvent(formId: string, userId: string, action: FormEvent['action'], values: Record<string, string> = {}) {
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
        seen.forms.push(form);
        return Promise.resolve(true);
      },
    },
  };
  return { event, seen };
}

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string', title: 'Name' }, count: { type: 'integer', title: 'Count' } },
  required: ['name'],
};

describe('elicitation forms across instances', () => {
  let db: TestStores;
  const adapterA = new RecordingAdapter({ platform: 'discord' });
  const adapterB = new RecordingAdapter({ platform: 'discord' });
  let deskA: ElicitationDesk;
  let deskB: ElicitationDesk;
  const wsId = 'b'.repeat(32);

  before(async () => {
    const url = testPostgresUrl();
    db = await createTestStores(url === undefined ? {} : { url });
    const { stores } = db;
    const desk = (adapter: RecordingAdapter): ElicitationDesk =>
      new ElicitationDesk({
        stores,
        router: new Router(stores, {} as WorkstreamManager),
        logger: createSilentLogger(),
        adapters: new Map([['discord', adapter]]),
        signal: new AbortController().signal,
        formPollMs: 20,
      });
    deskA = desk(adapterA);
    deskB = desk(adapterB);
    const owner = await stores.users.createUser('owner');
    const stranger = await stores.users.createUser('stranger');
    await stores.users.link('discord', 'u-owner', owner.userId);
    await stores.users.link('discord', 'u-stranger', stranger.userId);
    await stores.workstreams.create({ wsId, userId: owner.userId, name: 'test', modelAlias: 'fake' });
    await stores.routes.putRoute({ channelType: 'discord', channelId: 'thread-1', wsId });
  });
  after(async () => {
    deskA.stop();
    deskB.stop();
    await db.close();
  });

  function request(id: string): ElicitationRequest {
    return {
      id,
      server: 'forms',
      message: 'Who are you?',
      requestedSchema: SCHEMA,
      workstreamIds: [wsId],
      expiresAt: new Date(Date.now() + 60_000).toISOString(),
    };
  }

  it('a form opened by instance A is submitted through instance B and reaches the waiting call', async () => {
    const answer = deskA.handle(request('shared1'), new AbortController().signal);
    await waitFor(() => adapterA.cardFor('shared1'), 'the card posted by A');
    const stranger = formEvent('shared1', 'u-stranger', 'submit', { f0: 'Eve' });
    await deskB.onForm(adapterB, stranger.event);
    assert.match(stranger.seen.replies[0] ?? '', /Only the owner/);
    const open = formEvent('shared1', 'u-owner', 'open');
    await deskB.onForm(adapterB, open.event);
    assert.deepEqual(
      open.seen.forms[0]?.fields.map((field) => field.label),
      ['Name', 'Count'],
      'B shows the fields of the stored form',
    );
    const invalid = formEvent('shared1', 'u-owner', 'submit', { f0: '', f1: 'x' });
    await deskB.onForm(adapterB, invalid.event);
    assert.match(invalid.seen.replies[0] ?? '', /Please fix the form/);
    const submit = formEvent('shared1', 'u-owner', 'submit', { f0: 'Ada', f1: '3' });
    await deskB.onForm(adapterB, submit.event);
    assert.deepEqual(submit.seen.replies, ['Answer sent.']);
    assert.deepEqual(
      await answer,
      { action: 'accept', content: { name: 'Ada', count: 3 } },
      'the call waiting on A gets the answer given on B',
    );
    await waitFor(() => adapterA.cardFor('shared1')?.outcome.status === 'answered', 'A edits its card');
    assert.deepEqual(adapterA.cardFor('shared1')?.outcome, { status: 'answered', decidedBy: 'user-u-owner' });
    for (const [desk, adapter] of [
      [deskA, adapterA],
      [deskB, adapterB],
    ] as const) {
      const late = formEvent('shared1', 'u-owner', 'decline');
      await desk.onForm(adapter, late.event);
      assert.deepEqual(late.seen.replies, ['This request was already answered.']);
    }
  });

  it('answers given on both instances at once settle the form once', async () => {
    const answer = deskA.handle(request('shared2'), new AbortController().signal);
    await waitFor(() => adapterA.cardFor('shared2'), 'the card posted by A');
    const onA = formEvent('shared2', 'u-owner', 'decline');
    const onB = formEvent('shared2', 'u-owner', 'submit', { f0: 'Bo' });
    await Promise.all([deskA.onForm(adapterA, onA.event), deskB.onForm(adapterB, onB.event)]);
    const replies = [...onA.seen.replies, ...onB.seen.replies];
    // The loser is told so: "already answered" when both claims raced, or the winner's outcome ("already declined")
    // when the winner's row was stored before the loser's click was read (a busy machine orders them either way).
    assert.equal(
      replies.filter((text) => /^This request was already (answered|declined)\.$/.test(text)).length,
      1,
      replies.join(' | '),
    );
    assert.equal(
      replies.filter((text) => text === 'Declined.' || text === 'Answer sent.').length,
      1,
      replies.join(' | '),
    );
    const got = await answer;
    assert.equal(got.action, replies.includes('Declined.') ? 'decline' : 'accept', 'the call gets the answer that won');
  });
});
