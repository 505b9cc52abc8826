/** The `idle` event: a workstream says once per drained turn queue that nothing runs and nothing waits. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeModelProvider, textParts } from '../../test/fakes/fake-model-provider.js';
import { createTestStores, type TestStores } from '../../test/helpers/test-stores.js';
import { loadConfig } from '../config/index.js';
import { createSilentLogger } from '../shared/logger.js';
import type { AgentEvent, AgentEventType } from './events.js';
import { TurnQueue } from './turn-queue.js';
import type { Workstream, WorkstreamManager } from './workstream-api.js';
import { createWorkstreamManager } from './workstream-manager.js';

/** A workstream's events, with a promise for the n-th event of a type (no polling, no timer). */
class EventLog {
  readonly events: AgentEvent[] = [];
  private readonly waiting: Array<{ type: AgentEventType; n: number; resolve: () => void }> = [];

  constructor(ws: Workstream) {
    ws.subscribe((event) => {
      this.events.push(event);
      for (const waiter of [...this.waiting])
        if (this.count(waiter.type) >= waiter.n) {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          waiter.resolve();
        }
    });
  }

  count(type: AgentEventType): number {
    return this.events.filter((event) => event.type === type).length;
  }

  /** Resolves once `n` events of `type` arrived. */
  reach(type: AgentEventType, n: number): Promise<void> {
    if (this.count(type) >= n) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ type, n, resolve }));
  }

  /** The event types without the streamed text, in order. */
  get shape(): string[] {
    return this.events.map((event) => event.type).filter((type) => type !== 'text-delta' && type !== 'model-call-end');
  }
}

describe('workstream idle event', () => {
  let db: TestStores;
  let dir: string;
  let provider: FakeModelProvider;
  let manager: WorkstreamManager;
  let ownerUserId: string;

  before(async () => {
    db = await createTestStores();
    dir = mkdtempSync(join(tmpdir(), 'sandpiper-idle-'));
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: { 'gateway.data_dir': dir, models: { main: { provider: 'openai', model: 'fake' } } },
    });
    provider = new FakeModelProvider();
    manager = createWorkstreamManager({
      agent: config.agent,
      stores: db.stores,
      resolveModel: () => ({ provider, model: 'fake', contextWindow: 100_000, maxTokens: 1000, supportsVision: false }),
      defaultModelAlias: 'main',
      toolSources: [],
      logger: createSilentLogger(),
      streamModel: (p, request, options) => p.stream(request, options),
    });
    ownerUserId = (await db.stores.users.createUser('idle-owner')).userId;
  });
  after(async () => {
    await manager.shutdown();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(name: string): Promise<{ ws: Workstream; log: EventLog }> {
    const ws = await manager.create({ ownerUserId, name });
    return { ws, log: new EventLog(ws) };
  }

  it('follows a turn’s end, and the workstream is no longer busy then', async () => {
    const { ws, log } = await open('one-turn');
    provider.enqueue({ parts: textParts('Hello.') });
    await ws.send('hi');
    await log.reach('idle', 1);
    assert.deepEqual(log.shape, ['turn-start', 'turn-end', 'idle']);
    assert.equal(ws.isBusy(), false);
  });

  it('follows a failed turn too', async () => {
    const { ws, log } = await open('failed-turn');
    provider.enqueue({ error: new Error('the model fell over') });
    await ws.send('hi');
    await log.reach('idle', 1);
    assert.deepEqual(log.shape, ['turn-start', 'error', 'turn-end', 'idle']);
  });

  it('comes once after queued turns, at the end of the last one', async () => {
    const { ws, log } = await open('queued-turns');
    provider.enqueue({ parts: textParts('One.') }, { parts: textParts('Two.') }, { parts: textParts('Three.') });
    await ws.send('one');
    assert.equal((await ws.send('two')).status, 'accepted');
    await ws.send('three');
    await log.reach('idle', 1);
    // A later message starts a new drain with its own idle: a stray second idle of the first drain would come before it.
    provider.enqueue({ parts: textParts('Four.') });
    await ws.send('four');
    await log.reach('idle', 2);
    const turn = ['turn-start', 'turn-end'];
    assert.deepEqual(log.shape, [...turn, ...turn, ...turn, 'idle', ...turn, 'idle']);
  });

  it('is not emitted while a turn runs, only after it ended', async () => {
    const { ws, log } = await open('running-turn');
    provider.enqueue({ parts: [{ type: 'text-delta', text: 'Thinking' }], hang: true });
    await ws.send('think hard');
    await log.reach('text-delta', 1);
    assert.equal(log.count('idle'), 0);
    assert.equal(ws.isBusy(), true);
    ws.cancel();
    await log.reach('idle', 1);
    const end = log.events.find((event) => event.type === 'turn-end');
    assert.equal(end?.type === 'turn-end' ? end.reason : undefined, 'cancelled');
    assert.deepEqual(log.shape.slice(-2), ['turn-end', 'idle']);
  });
});

describe('TurnQueue drain', () => {
  it('reports the drain once when a job fails without ending its turn, and runs the next job first', async () => {
    const ran: string[] = [];
    const failures: unknown[] = [];
    let drains = 0;
    let drained!: () => void;
    const done = new Promise<void>((resolve) => (drained = resolve));
    const queue = new TurnQueue({
      run: (job) => {
        ran.push(job.turnId);
        return job.turnId === 'a' ? Promise.reject(new Error('no turn-end')) : Promise.resolve();
      },
      failed: (error) => failures.push(error),
      active: () => undefined,
      drained: () => {
        drains += 1;
        drained();
      },
    });
    queue.push({ kind: 'user', turnId: 'a', content: 'a', origin: 'user' });
    queue.push({ kind: 'user', turnId: 'b', content: 'b', origin: 'user' });
    await done;
    await queue.settled();
    assert.deepEqual(ran, ['a', 'b']);
    assert.equal(failures.length, 1);
    assert.equal(drains, 1);
  });
});
