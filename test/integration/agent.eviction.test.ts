/** Idle eviction: limits by count and idle time, busy workstreams kept, evicted ones restored with their history. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { contentText } from '../../src/agent/messages.js';
import type { Workstream } from '../../src/agent/workstream-api.js';
import { createWorkstreamManager, type DefaultWorkstreamManager } from '../../src/agent/workstream-manager.js';
import { loadConfig } from '../../src/config/index.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { FakeModelProvider, textParts, toolCallParts } from '../fakes/fake-model-provider.js';
import { FakeToolSource } from '../fakes/fake-turn-context.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';
import { ofType, record, turnEnd, waitFor } from './agent.harness.js';

const MINUTE = 60_000;

interface Setup {
  manager: DefaultWorkstreamManager;
  provider: FakeModelProvider;
  clock: { now: number };
  ownerId: string;
  close(): Promise<void>;
}

async function setup(
  db: TestStores,
  agent: { max_active_workstreams: number; idle_evict_minutes: number },
): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-evict-'));
  const config = loadConfig({
    cwd: dir,
    env: {},
    flags: {
      'gateway.data_dir': dir,
      'agent.max_active_workstreams': agent.max_active_workstreams,
      'agent.idle_evict_minutes': agent.idle_evict_minutes,
      models: { main: { provider: 'openai', model: 'fake' } },
    },
  });
  const provider = new FakeModelProvider();
  const clock = { now: 1_000_000 };
  const manager = createWorkstreamManager({
    agent: config.agent,
    stores: db.stores,
    resolveModel: () => ({ provider, model: 'fake', contextWindow: 100_000, maxTokens: 1000, supportsVision: false }),
    defaultModelAlias: 'main',
    toolSources: [new FakeToolSource([{ name: 'bash' }])],
    logger: createSilentLogger(),
    streamModel: (p, request, options) => p.stream(request, options),
    now: () => clock.now,
  });
  const owner = (await db.stores.users.getUserByUsername('alice')) ?? (await db.stores.users.createUser('alice'));
  return {
    manager,
    provider,
    clock,
    ownerId: owner.userId,
    close: async () => {
      await manager.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** True when `get` hands back the same live object (not evicted). */
async function isLive(manager: DefaultWorkstreamManager, ws: Workstream): Promise<boolean> {
  return (await manager.get(ws.wsId)) === ws;
}

describe('idle workstream eviction', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(async () => {
    await db.close();
  });

  it('evicts the least recently active idle workstreams beyond agent.max_active_workstreams', async () => {
    const s = await setup(db, { max_active_workstreams: 2, idle_evict_minutes: 120 });
    try {
      const first = await s.manager.create({ ownerUserId: s.ownerId, name: 'first' });
      s.clock.now += MINUTE;
      const second = await s.manager.create({ ownerUserId: s.ownerId, name: 'second' });
      s.clock.now += MINUTE;
      const third = await s.manager.create({ ownerUserId: s.ownerId, name: 'third' });
      assert.equal(s.manager.stats().active, 2);
      assert.equal(await isLive(s.manager, second), true);
      assert.equal(await isLive(s.manager, third), true);
      assert.equal(await isLive(s.manager, first), false, 'the oldest one was evicted and comes back restored');
    } finally {
      await s.close();
    }
  });

  it('evicts workstreams idle longer than agent.idle_evict_minutes and keeps recently used ones', async () => {
    const s = await setup(db, { max_active_workstreams: 10, idle_evict_minutes: 5 });
    try {
      const stale = await s.manager.create({ ownerUserId: s.ownerId, name: 'stale' });
      const fresh = await s.manager.create({ ownerUserId: s.ownerId, name: 'fresh' });
      assert.equal(await s.manager.evictIdle(), 0);
      s.clock.now += 4 * MINUTE;
      const events = record(fresh);
      s.provider.enqueue({ parts: textParts('hi') });
      await fresh.send('hello');
      await turnEnd(events);
      s.clock.now += 2 * MINUTE;
      assert.equal(await s.manager.evictIdle(), 1);
      assert.equal(s.manager.stats().active, 1);
      assert.equal(await isLive(s.manager, fresh), true);
      assert.equal(await isLive(s.manager, stale), false);
    } finally {
      await s.close();
    }
  });

  it('never evicts a running workstream or one waiting for an approval', async () => {
    const s = await setup(db, { max_active_workstreams: 1, idle_evict_minutes: 1 });
    try {
      const running = await s.manager.create({ ownerUserId: s.ownerId, name: 'running' });
      const runningEvents = record(running);
      s.provider.enqueue({ parts: [{ type: 'text-delta', text: 'thinking...' }], hang: true });
      await running.send('take your time');
      await waitFor(() => ofType(runningEvents, 'text-delta').length > 0, 'running turn streams');
      const waiting = await s.manager.create({ ownerUserId: s.ownerId, name: 'waiting' });
      const waitingEvents = record(waiting);
      s.provider.enqueue({ parts: toolCallParts([{ id: 'call_1', name: 'bash', args: { command: 'ls' } }]) });
      await waiting.send('list files');
      const request = await waitFor(() => ofType(waitingEvents, 'approval-request')[0], 'approval-request');
      const idle = await s.manager.create({ ownerUserId: s.ownerId, name: 'idle' });
      assert.equal(s.manager.stats().active, 3, 'over the limit, but nothing is evictable');
      s.clock.now += 60 * MINUTE;
      assert.equal(await s.manager.evictIdle(), 1);
      assert.equal(await isLive(s.manager, running), true);
      assert.equal(await isLive(s.manager, waiting), true);
      assert.equal(await isLive(s.manager, idle), false);
      s.provider.enqueue({ parts: textParts('listed') });
      await s.manager.resolveApproval(request.approvalId, { approved: true, decidedBy: s.ownerId });
      assert.equal((await turnEnd(waitingEvents)).text, 'listed');
      assert.equal(ofType(waitingEvents, 'tool-result').length, 1);
      running.cancel();
      assert.equal((await turnEnd(runningEvents)).reason, 'cancelled');
    } finally {
      await s.close();
    }
  });

  it('does not evict the workstream it just created, even when every other one is busy', async () => {
    const s = await setup(db, { max_active_workstreams: 1, idle_evict_minutes: 120 });
    try {
      const busy = await s.manager.create({ ownerUserId: s.ownerId, name: 'busy' });
      const busyEvents = record(busy);
      s.provider.enqueue({ parts: [], hang: true });
      await busy.send('wait');
      const created = await s.manager.create({ ownerUserId: s.ownerId, name: 'new' });
      assert.equal(await isLive(s.manager, created), true);
      assert.equal(await isLive(s.manager, busy), true);
      busy.cancel();
      await turnEnd(busyEvents);
    } finally {
      await s.close();
    }
  });

  it('restores an evicted workstream from the database with its history on the next get and send', async () => {
    const s = await setup(db, { max_active_workstreams: 10, idle_evict_minutes: 1 });
    try {
      const ws = await s.manager.create({ ownerUserId: s.ownerId, name: 'restore' });
      const events = record(ws);
      s.provider.enqueue({ parts: textParts('The capital is Paris.') });
      await ws.send('What is the capital of France?');
      await turnEnd(events);
      s.clock.now += 2 * MINUTE;
      assert.equal(await s.manager.evictIdle(), 1);
      assert.equal(s.manager.stats().active, 0);
      const restored = await s.manager.get(ws.wsId);
      assert.ok(restored !== undefined && restored !== ws);
      assert.equal(s.manager.stats().active, 1);
      const restoredEvents = record(restored);
      s.provider.enqueue({ parts: textParts('About 2 million people.') });
      await restored.send('And its population?');
      assert.equal((await turnEnd(restoredEvents)).text, 'About 2 million people.');
      const texts = s.provider.requests.at(-1)?.messages.map((message) => contentText(message.content)) ?? [];
      assert.deepEqual(texts.slice(1), [
        'What is the capital of France?',
        'The capital is Paris.',
        'And its population?',
      ]);
      assert.equal(await s.manager.get(ws.wsId), restored, 'restored once, then live');
    } finally {
      await s.close();
    }
  });
  it('after shutdown nothing starts a turn: no new workstream, and evicted or restored ones refuse messages', async () => {
    const s = await setup(db, { max_active_workstreams: 10, idle_evict_minutes: 1 });
    try {
      const evicted = await s.manager.create({ ownerUserId: s.ownerId, name: 'evicted' });
      const stored = await s.manager.create({ ownerUserId: s.ownerId, name: 'stored' });
      s.clock.now += 2 * MINUTE;
      assert.equal(await s.manager.evictIdle(), 2);
      await s.manager.shutdown();
      await assert.rejects(s.manager.create({ ownerUserId: s.ownerId, name: 'late' }), /shutting down/);
      await assert.rejects(evicted.send('a message for the evicted object'), /closed/);
      const restored = await s.manager.get(stored.wsId);
      assert.ok(restored, 'the row is still there');
      await assert.rejects(restored.send('a message after shutdown'), /closed/);
      assert.equal(s.provider.requests.length, 0, 'no model call was made');
      assert.deepEqual(await db.stores.conversations.load(stored.wsId), [], 'nothing was queued or stored');
    } finally {
      await s.close();
    }
  });
});
