/** A workstream's subscribers: a throwing handler is logged and stays subscribed; the turn and other subscribers are unaffected. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createWorkstreamManager } from '../../src/agent/workstream-manager.js';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/shared/logger.js';
import { FakeModelProvider, textParts } from '../fakes/fake-model-provider.js';
import { createTestStores } from '../helpers/test-stores.js';
import { ofType, record, turnEnd, waitFor } from './agent.harness.js';

describe('workstream event subscribers', () => {
  it('keeps a throwing handler subscribed across turns and logs each failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandpiper-events-'));
    const db = await createTestStores();
    const logs: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n'))
          if (line.trim()) logs.push(JSON.parse(line) as Record<string, unknown>);
        callback();
      },
    });
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: { 'gateway.data_dir': dir, models: { main: { provider: 'openai', model: 'fake' } } },
    });
    const provider = new FakeModelProvider();
    const manager = createWorkstreamManager({
      agent: config.agent,
      stores: db.stores,
      resolveModel: () => ({ provider, model: 'fake', contextWindow: 100_000, maxTokens: 1000, supportsVision: false }),
      defaultModelAlias: 'main',
      toolSources: [],
      logger: createLogger({ level: 'info', format: 'json', destination }),
      streamModel: (p, request, options) => p.stream(request, options),
    });
    try {
      const owner = await db.stores.users.createUser('alice');
      const ws = await manager.create({ ownerUserId: owner.userId, name: 'events' });
      const seenByThrower: string[] = [];
      ws.subscribe((event) => {
        seenByThrower.push(event.type);
        if (event.type === 'turn-start' || event.type === 'text-delta') throw new Error('renderer bug');
      });
      const events = record(ws);
      provider.enqueue({ parts: textParts('first') }, { parts: textParts('second') });
      await ws.send('one');
      assert.equal((await turnEnd(events, 1)).text, 'first');
      await ws.send('two');
      const end = await turnEnd(events, 2);
      assert.equal(end.reason, 'done');
      assert.equal(end.text, 'second');
      await waitFor(
        () => seenByThrower.filter((type) => type === 'turn-end').length === 2,
        'thrower saw both turn-ends',
      );
      assert.deepEqual(
        seenByThrower,
        events.map((event) => event.type),
      );
      assert.equal(ofType(events, 'error').length, 0);
      const failures = logs.filter((line) => line['msg'] === 'event handler failed');
      assert.deepEqual(
        failures.map((line) => line['event']),
        ['turn-start', 'text-delta', 'turn-start', 'text-delta'],
      );
      assert.ok(failures.every((line) => line['wsId'] === ws.wsId));
    } finally {
      await manager.shutdown();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
