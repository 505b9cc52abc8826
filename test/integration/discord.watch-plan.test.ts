/** End to end through the gateway and fake Discord: a watch that survives a restart, and a plan reviewed on its card. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';

const PLAN_A = [
  '## Goal',
  'Add a /health endpoint to the service.',
  '## Current State',
  'src/server.ts:12 defines the routes; there is no health route yet.',
  '## Plan',
  '1. Add a GET /health route in src/server.ts returning {"status":"ok"}.',
  '2. Test it in test/server.test.ts.',
  '## Risks',
  'Load balancers may cache the answer.',
].join('\n');
const PLAN_B = `${PLAN_A}\n3. Also expose the request count on /metrics in src/metrics.ts.`;

describe('discord watch and plan', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  before(async () => {
    h = await DiscordHarness.start();
    ({ user: alice } = await h.linkedUser('400000000000000071', 'alice'));
  });
  after(async () => {
    await h.close();
  });

  const reply = (id: string) => () => h.fake.state.interactions.get(id)?.reply;

  it('fires a watch created before a restart exactly once after it, with the result and the answer in the thread', async () => {
    const create = {
      action: 'create',
      name: 'deploy',
      command: 'echo deploy-state: ready',
      poll_every: '10m',
      stop_on: '"ready" in output',
    };
    h.llm.enqueue(
      { toolCalls: [{ id: 'call_w1', name: 'watch', arguments: JSON.stringify(create) }] },
      { text: 'Watching the deploy.' },
    );
    const { threadId } = await h.mention(alice, 'tell me when the deploy is ready');
    const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'watch approval card');
    assert.match(JSON.stringify(card.embeds), /watch/);
    const click = h.fake.state.clickButton(card.id, h.button(card, 'Approve') ?? '', alice);
    assert.equal(await h.fake.waitFor(reply(click.id), 15_000, 'approve reply'), 'Approved.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Watching the deploy.'),
      20_000,
      'first answer',
    );
    const route = await h.db.stores.routes.getRoute('discord', threadId);
    const [watch] = await h.db.stores.watches.listForWorkstream(route?.wsId ?? '');
    assert.equal(watch?.name, 'deploy');

    await h.crash();
    // The gateway was down past the poll time: the watch is overdue when it comes back.
    await h.db.stores.watches.update(watch?.watchId ?? '', { nextPoll: '2020-01-01T00:00:00' });
    const requestsBefore = h.llm.requests.length;
    h.llm.enqueue({ text: 'The deploy is ready.' });
    await h.boot();

    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'The deploy is ready.'),
      20_000,
      'answer to the watch result',
    );
    const results = h
      .botMessages(threadId)
      .filter((m) => /Watch \\"deploy\\" — poll #1\/100/.test(JSON.stringify(m.embeds)));
    assert.equal(results.length, 1, 'the watch result is shown in the thread once');
    assert.match(JSON.stringify(results[0]?.embeds), /deploy-state: ready/);
    const order = h.botMessages(threadId).map((m) => m.id);
    const answer = h.textMessages(threadId).find((m) => m.content === 'The deploy is ready.');
    assert.ok(
      order.indexOf(results[0]?.id ?? '') < order.indexOf(answer?.id ?? ''),
      'the result comes before the answer',
    );
    assert.match(
      JSON.stringify(h.llm.requests.at(-1)?.body),
      /condition met: \\"ready\\" in output — watch auto-cancelled/,
    );
    const after = await h.db.stores.watches.get(watch?.watchId ?? '');
    assert.deepEqual([after?.active, after?.pollCount, after?.nextPoll], [false, 1, null]);
    // Further ticks find nothing due: it fired exactly once.
    assert.equal(await h.watchRunner.tick(), 0);
    assert.equal(h.llm.requests.length, requestsBefore + 1);
  });

  it('shows the plan on its card, refines it on "Request changes" with feedback, and continues after Approve', async () => {
    h.llm.enqueue(
      { toolCalls: [{ id: 'call_p1', name: 'plan', arguments: JSON.stringify({ prompt: 'add a health check' }) }] },
      { text: PLAN_A },
      { text: PLAN_B },
      { text: 'Plan approved; implementing it now.' },
    );
    const { threadId } = await h.mention(alice, 'plan a health check');
    const approval = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'plan tool approval card');
    h.fake.state.clickButton(approval.id, h.button(approval, 'Approve') ?? '', alice);
    const first = await h.fake.waitFor(
      () => h.cards(threadId).find((m) => JSON.stringify(m.embeds).includes('Plan Review')),
      20_000,
      'plan card',
    );
    assert.match(JSON.stringify(first.embeds), /no health route yet/);

    const changes = h.fake.state.clickButton(first.id, h.button(first, 'Request changes') ?? '', alice);
    const modal = await h.fake.waitFor(
      () => h.fake.state.interactions.get(changes.id)?.modal,
      15_000,
      'request-changes modal',
    );
    const submit = h.fake.state.submitModal(String(modal.custom_id), threadId, alice, {
      feedback: 'also cover the metrics endpoint',
    });
    assert.equal(await h.fake.waitFor(reply(submit.id), 15_000, 'changes reply'), 'Changes requested.');

    const second = await h.fake.waitFor(
      () => h.cards(threadId).find((m) => m.id !== first.id && JSON.stringify(m.embeds).includes('Plan Review')),
      20_000,
      'refined plan card',
    );
    assert.match(JSON.stringify(second.embeds), /request count on \/metrics/);
    assert.match(JSON.stringify(first.embeds), /Changes requested/);
    const refineRequest = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.match(refineRequest, /also cover the metrics endpoint/);
    assert.match(refineRequest, /no health route yet/, 'the refinement sees the current plan');

    const approve = h.fake.state.clickButton(second.id, h.button(second, 'Approve') ?? '', alice);
    assert.equal(await h.fake.waitFor(reply(approve.id), 15_000, 'approve reply'), 'Plan approved.');
    await h.fake.waitFor(
      () => h.textMessages(threadId).find((m) => m.content === 'Plan approved; implementing it now.'),
      20_000,
      'answer',
    );
    const finalRequest = JSON.stringify(h.llm.requests.at(-1)?.body);
    assert.match(finalRequest, /request count on \/metrics/);
    assert.match(finalRequest, /The user approved this plan/);
    const route = await h.db.stores.routes.getRoute('discord', threadId);
    const saved = await readFile(
      path.join(h.config.agent.workspace_dir, route?.wsId ?? '', `.plan-${route?.wsId ?? ''}.md`),
      'utf8',
    );
    assert.match(saved, /request count on \/metrics/);
  });
});
