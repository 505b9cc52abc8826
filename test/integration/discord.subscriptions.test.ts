/** End to end: the gateway lets go of quiet workstreams, so idle eviction frees them, and their threads still answer. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import type { Workstream } from '../../src/agent/workstream-api.js';
import { DiscordHarness } from '../fakes/fake-discord-harness.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const THREADS = 5;

describe('discord subscriptions and eviction', () => {
  let h: DiscordHarness;
  before(async () => {
    h = await DiscordHarness.start({ flags: { 'agent.max_active_workstreams': 2 } });
  });
  after(async () => {
    await h.close();
  });

  it('holds no workstream after its turn, lets eviction free it, and still answers in the thread later', async () => {
    const { user } = await h.linkedUser('400000000000000061', 'erin');
    const threads: string[] = [];
    const objects: WeakRef<Workstream>[] = [];
    for (let i = 0; i < THREADS; i += 1) {
      h.llm.enqueue({ text: `Answer ${i}.` });
      const { threadId } = await h.mention(user, `question ${i}`);
      threads.push(threadId);
      await h.fake.waitFor(
        () => h.textMessages(threadId).find((m) => m.content === `Answer ${i}.`),
        20_000,
        `answer ${i}`,
      );
      const wsId = await h.db.stores.routes.getRoute('discord', threadId);
      const ws = wsId ? await h.runtime.manager.get(wsId.wsId) : undefined;
      if (ws) objects.push(new WeakRef(ws));
    }
    await h.fake.waitFor(() => h.gateway.status().workstreams === 0, 15_000, 'subscriptions released');

    await h.runtime.manager.evictIdle();
    assert.ok(
      h.runtime.manager.stats().active <= 2,
      `live workstreams after eviction: ${h.runtime.manager.stats().active}`,
    );
    await h.fake.waitFor(
      () => {
        collectGarbage();
        return objects.filter((ref) => ref.deref() !== undefined).length <= 2;
      },
      15_000,
      'evicted workstreams collected',
    );

    h.llm.enqueue({ text: 'Still here.' });
    h.fake.state.injectMessage(threads[0] ?? '', user, 'are you there?');
    await h.fake.waitFor(
      () => h.textMessages(threads[0] ?? '').find((m) => m.content === 'Still here.'),
      20_000,
      'answer after eviction',
    );
    assert.match(JSON.stringify(h.llm.requests.at(-1)?.body), /question 0/, 'the restored workstream kept its history');
    await h.fake.waitFor(() => h.gateway.status().workstreams === 0, 15_000, 'released again after the answer');
  });
});
