import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSilentLogger } from '../../../shared/logger.js';
import { createTestStores, type TestStores } from '../../../../test/helpers/test-stores.js';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { WatchRunner, type WatchDelivery } from '../../watch/watch-runner.js';
import type { ToolContext } from '../tool.js';
import { createWatchHandler, MAX_ACTIVE_WATCHES } from './watch.js';

describe('watch tool and runner', () => {
  let db: TestStores;
  let workspace: { directory: string; remove(): Promise<void> };
  let clock = Date.parse('2026-06-01T12:00:00Z');
  const now = (): number => clock;
  before(async () => {
    db = await createTestStores();
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await db.close();
    await workspace.remove();
  });

  const context = (wsId: string): ToolContext => createToolContext(workspace.directory, { workstreamId: wsId });
  const handler = (): ReturnType<typeof createWatchHandler> => createWatchHandler({ store: db.stores.watches, now });
  const runner = (deliveries: WatchDelivery[], deliver = true): WatchRunner =>
    new WatchRunner({
      store: db.stores.watches,
      deliver: async (delivery) => {
        deliveries.push(delivery);
        return deliver;
      },
      cwdFor: () => workspace.directory,
      commandTimeoutMs: 10_000,
      logger: createSilentLogger(),
      now,
    });

  it('asks before create and not for list or cancel; explains bad arguments', async () => {
    const watch = handler();
    const ok = await watch.prepare(
      {
        action: 'create',
        command: 'gh pr view 1',
        poll_every: '30s',
        stop_on: 'data["state"] == "MERGED"',
        name: 'pr',
      },
      context('ws-a'),
    );
    assert.deepEqual([ok.needsApproval, ok.approvalLabel, ok.error], [true, 'watch', undefined]);
    assert.match(ok.header, /⏱ watch: "pr" every 30s/);
    assert.equal((await watch.prepare({ action: 'list' }, context('ws-a'))).needsApproval, false);
    assert.equal((await watch.prepare({ action: 'cancel', name: 'pr' }, context('ws-a'))).needsApproval, false);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ action: 'create' }, /'command' is required/],
      [{ action: 'create', command: 'ls', poll_every: '5s' }, /minimum poll interval is 10s/],
      [{ action: 'create', command: 'ls', poll_every: '25h' }, /maximum poll interval is 86400s/],
      [{ action: 'create', command: 'ls', poll_every: 'often' }, /invalid poll_every/],
      [{ action: 'create', command: 'ls', stop_on: 'output ==' }, /invalid stop_on condition: syntax error/],
      [{ action: 'create', command: 'rm -rf /' }, /Blocked/],
      [{ action: 'cancel' }, /'name' is required for cancel/],
      [{ action: 'explode' }, /unknown action 'explode'/],
    ];
    for (const [args, expected] of cases)
      assert.match((await watch.prepare(args, context('ws-a'))).error ?? '', expected, JSON.stringify(args));
  });

  it('creates, lists and cancels; refuses duplicates and a sixth active watch', async () => {
    const watch = handler();
    const created = await watch.execute({ action: 'create', command: 'echo hi', name: 'one' }, context('ws-b'));
    assert.match(String(created.output), /Watch "one" created/);
    const [row] = await db.stores.watches.listForWorkstream('ws-b');
    assert.deepEqual(
      [row?.intervalSecs, row?.maxPolls, row?.stopOn, row?.nextPoll],
      [300, 100, null, '2026-06-01T12:05:00'],
    );
    assert.match(
      (await watch.prepare({ action: 'create', command: 'echo hi', name: 'one' }, context('ws-b'))).error ?? '',
      /already exists/,
    );
    for (let i = 2; i <= MAX_ACTIVE_WATCHES; i++)
      await watch.execute({ action: 'create', command: 'true', name: `w${i}` }, context('ws-b'));
    assert.match(
      (await watch.prepare({ action: 'create', command: 'true' }, context('ws-b'))).error ?? '',
      /maximum 5 active watches/,
    );
    assert.match(
      String((await watch.execute({ action: 'list' }, context('ws-b'))).output),
      /one \([0-9a-f]{8}\): every 5m, poll #0\/100, condition: on change, cmd: echo hi/,
    );
    assert.equal(
      (await watch.execute({ action: 'cancel', name: 'one' }, context('ws-b'))).output,
      'Watch "one" cancelled.',
    );
    assert.equal(
      (await watch.execute({ action: 'cancel', name: 'one' }, context('ws-b'))).output,
      'Watch "one" not found.',
    );
    assert.equal((await db.stores.watches.listForWorkstream('ws-b')).length, MAX_ACTIVE_WATCHES - 1);
    assert.equal(String((await watch.execute({ action: 'list' }, context('ws-empty'))).output), 'No active watches.');
  });

  it('polls a due watch once per tick, fires on its condition and ends it', async () => {
    const deliveries: WatchDelivery[] = [];
    await handler().execute(
      {
        action: 'create',
        command: 'echo \'{"state": "MERGED"}\'',
        name: 'pr',
        poll_every: '10s',
        stop_on: 'data["state"] == "MERGED"',
      },
      context('ws-c'),
    );
    assert.equal(await runner(deliveries).tick(), 0, 'not due before its interval');
    clock += 11_000;
    assert.equal(await runner(deliveries).tick(), 1);
    assert.equal(deliveries.length, 1);
    assert.match(
      deliveries[0]?.text ?? '',
      /\[Watch "pr" — poll #1\/100, \d+s elapsed\]\n\[condition: data\["state"\] == "MERGED"\]\n\n\$ echo/,
    );
    assert.match(deliveries[0]?.text ?? '', /\[condition met: data\["state"\] == "MERGED" — watch auto-cancelled\]$/);
    const [row] = await db.stores.watches.listForWorkstream('ws-c');
    assert.equal(row, undefined, 'no longer active');
    clock += 60_000;
    assert.equal(await runner(deliveries).tick(), 0);
  });

  it('reports changes without a condition and keeps watching; ends at max polls', async () => {
    const deliveries: WatchDelivery[] = [];
    await handler().execute(
      { action: 'create', command: 'cat counter.txt', name: 'counter', poll_every: '10s', max_polls: 3 },
      context('ws-d'),
    );
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${workspace.directory}/counter.txt`, '1');
    const poll = async (): Promise<void> => {
      clock += 11_000;
      await runner(deliveries).tick();
    };
    await poll();
    assert.equal(deliveries.length, 0, 'the first poll is the baseline');
    await writeFile(`${workspace.directory}/counter.txt`, '2');
    await poll();
    assert.equal(deliveries.length, 1);
    assert.match(deliveries[0]?.text ?? '', /\[mode: fire on output change\]/);
    assert.doesNotMatch(deliveries[0]?.text ?? '', /auto-cancelled/);
    await poll();
    assert.equal(deliveries.length, 2);
    assert.match(deliveries[1]?.text ?? '', /poll #3\/3.*\n[\s\S]*\[max polls reached — watch auto-cancelled\]$/);
    assert.equal((await db.stores.watches.listForWorkstream('ws-d')).length, 0);
  });

  it('ends a watch whose condition errors, and one whose workstream is gone', async () => {
    const deliveries: WatchDelivery[] = [];
    await handler().execute(
      { action: 'create', command: 'echo x', name: 'bad', poll_every: '10s', stop_on: 'data["missing"] == 1' },
      context('ws-e'),
    );
    clock += 11_000;
    await runner(deliveries).tick();
    assert.match(
      deliveries[0]?.text ?? '',
      /\[condition error: 'NoneType' object is not subscriptable — watch auto-cancelled\]/,
    );
    await handler().execute(
      { action: 'create', command: 'echo a; date +%N', name: 'orphan', poll_every: '10s' },
      context('ws-gone'),
    );
    for (let i = 0; i < 2; i++) {
      clock += 11_000;
      await runner(deliveries, false).tick();
    }
    assert.equal(
      (await db.stores.watches.listForWorkstream('ws-gone')).length,
      0,
      'cancelled when its result cannot be delivered',
    );
  });

  it('lets only one of two runners poll the same due watch', async () => {
    const first: WatchDelivery[] = [];
    const second: WatchDelivery[] = [];
    await handler().execute(
      { action: 'create', command: 'echo done', name: 'race', poll_every: '10s', stop_on: '"done" in output' },
      context('ws-f'),
    );
    clock += 11_000;
    const polls = await Promise.all([runner(first).tick(), runner(second).tick()]);
    assert.equal(polls[0] + polls[1], 1);
    assert.equal(first.length + second.length, 1);
  });
});
