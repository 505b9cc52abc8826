import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../shared/logger.js';
import type { AgentEvent } from './events.js';
import { WorkstreamEventBus } from './workstream-event-bus.js';

function capturingLogger(): { logger: ReturnType<typeof createLogger>; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ level: 'info', format: 'json', destination }), lines };
}

const delta = (text: string): AgentEvent => ({ type: 'text-delta', text });

describe('WorkstreamEventBus', () => {
  it('logs a throwing or rejecting handler and keeps delivering to it and to the others', async () => {
    const { logger, lines } = capturingLogger();
    const bus = new WorkstreamEventBus('ws-1', logger);
    const throwing: string[] = [];
    const rejecting: string[] = [];
    const healthy: string[] = [];
    bus.subscribe((event) => {
      if (event.type === 'text-delta') throwing.push(event.text);
      throw new Error('handler bug');
    });
    bus.subscribe(async (event) => {
      if (event.type === 'text-delta') rejecting.push(event.text);
      await Promise.resolve();
      throw new Error('async handler bug');
    });
    bus.subscribe((event) => {
      if (event.type === 'text-delta') healthy.push(event.text);
    });
    bus.emit(delta('a'));
    bus.emit(delta('b'));
    await bus.flush();
    assert.deepEqual(throwing, ['a', 'b']);
    assert.deepEqual(rejecting, ['a', 'b']);
    assert.deepEqual(healthy, ['a', 'b']);
    assert.equal(bus.subscriberCount, 3);
    const failures = lines.filter((line) => line['msg'] === 'event handler failed');
    assert.equal(failures.length, 4);
    assert.equal(failures[0]?.['wsId'], 'ws-1');
    assert.equal(failures[0]?.['event'], 'text-delta');
  });

  it('delivers every event, turn-start too, within the microtasks of its emitter, in order (no timer in between)', async () => {
    const { logger } = capturingLogger();
    const bus = new WorkstreamEventBus('ws-1', logger);
    const seen: string[] = [];
    bus.subscribe((event) => {
      seen.push(event.type);
    });
    const microtasks = async (): Promise<void> => {
      for (let i = 0; i < 50; i++) await Promise.resolve();
    };
    bus.emit(delta('before'));
    bus.emit({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
    bus.emit(delta('after'));
    await microtasks();
    assert.deepEqual(seen, ['text-delta', 'turn-start', 'text-delta']);
  });

  it('runs handlers strictly in order: a slow handler holds back the next event', async () => {
    const { logger } = capturingLogger();
    const bus = new WorkstreamEventBus('ws-1', logger);
    const seen: string[] = [];
    bus.subscribe(async (event) => {
      if (event.type !== 'text-delta') return;
      seen.push(`start ${event.text}`);
      await new Promise((resolve) => setTimeout(resolve, event.text === 'slow' ? 20 : 0));
      seen.push(`end ${event.text}`);
    });
    bus.emit(delta('slow'));
    bus.emit(delta('fast'));
    await bus.flush();
    assert.deepEqual(seen, ['start slow', 'end slow', 'start fast', 'end fast']);
  });

  it('stops delivering after unsubscribe, also for events already queued', async () => {
    const { logger } = capturingLogger();
    const bus = new WorkstreamEventBus('ws-1', logger);
    const seen: string[] = [];
    const unsubscribe = bus.subscribe((event) => {
      if (event.type === 'text-delta') seen.push(event.text);
    });
    bus.emit(delta('a'));
    unsubscribe();
    bus.emit(delta('b'));
    await bus.flush();
    assert.deepEqual(seen, []);
    assert.equal(bus.subscriberCount, 0);
  });
});
