/** Benchmark: N concurrent Discord threads through the fake Discord, Sandpiper's gateway next to a bare discord.js echo bot. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, Events, GatewayIntentBits, Partials, Routes } from 'discord.js';
import type { ModelProvider, ModelRequest, ModelStreamPart } from '../src/agent/providers/model-provider.js';
import { createDiscordAdapter } from '../src/channels/discord/index.js';
import { loadConfig } from '../src/config/index.js';
import { createGateway } from '../src/gateway/index.js';
import { createAgentRuntime } from '../src/main-agent.js';
import { createSilentLogger } from '../src/shared/logger.js';
import { FakeDiscord, type FakeUser } from '../test/fakes/fake-discord.js';
import { createTestStores } from '../test/helpers/test-stores.js';

const CHANNEL = '300000000000000001';
const DELTAS = 30;
const DELTA_MS = 10;
const sizes = (process.argv.find((a) => a.startsWith('--sizes='))?.slice(8) ?? '10,100,1000').split(',').map(Number);

const answerFor = (k: number): string => Array.from({ length: DELTAS }, (_, i) => `t${k}-${i} `).join('').trim();

/** In-process model: records when each thread's request arrived and when its last token left. */
class BenchProvider implements ModelProvider {
  readonly id = 'bench';
  readonly requestAt = new Map<number, number>();
  readonly lastTokenAt = new Map<number, number>();
  capabilities() {
    return { contextWindow: 128_000, maxOutputTokens: 4096, supportsVision: false };
  }
  async *stream(request: ModelRequest, options: { signal: AbortSignal }): AsyncIterable<ModelStreamPart> {
    const k = Number(/bench-(\d+)/.exec(JSON.stringify(request.messages.at(-1)))?.[1] ?? -1);
    if (!this.requestAt.has(k)) this.requestAt.set(k, performance.now());
    const words = answerFor(k).split(' ');
    for (const [i, word] of words.entries()) {
      await new Promise((resolve) => setTimeout(resolve, DELTA_MS));
      if (options.signal.aborted) return;
      yield { type: 'text-delta', text: i === 0 ? word : ` ${word}` };
    }
    this.lastTokenAt.set(k, performance.now());
    yield { type: 'finish', finishReason: 'stop' };
  }
}

interface Phase {
  label: string;
  firstMs: number[];
  finalMs: number[];
  editsPerMessage: number;
  lagP99: number;
  lagMax: number;
  heapMb: number;
  rssMb: number;
  wallMs: number;
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('benchmark timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function finalTime(fake: FakeDiscord, threadId: string, text: string): number | undefined {
  const message = fake.state.messagesIn(threadId).find((m) => m.author.bot && m.content === text);
  return message ? (message.edits > 0 ? message.editedAt : message.createdAt) : undefined;
}

async function runSandpiper(n: number): Promise<Phase> {
  const fake = await FakeDiscord.start();
  const db = await createTestStores();
  const dir = mkdtempSync(join(tmpdir(), 'sandpiper-bench-'));
  const provider = new BenchProvider();
  const config = loadConfig({ cwd: dir, env: {}, flags: {
    'gateway.data_dir': dir, 'models.fake.provider': 'openai', 'models.fake.model': 'bench', 'models.fake.api_key': 'k',
    'discord.token': fake.token, 'discord.api_url': fake.apiUrl, 'agent.max_active_workstreams': Math.max(200, n * 2),
  } });
  const logger = createSilentLogger();
  const runtime = await createAgentRuntime(config, db.stores, logger, { providers: { fake: provider }, evictIntervalMs: 0 });
  const gateway = createGateway({ config, adapters: [createDiscordAdapter(config.discord, logger)], manager: runtime.manager, stores: db.stores, logger });
  const controller = new AbortController();
  await gateway.start(controller.signal);
  const users: FakeUser[] = [];
  for (let k = 0; k < n; k += 1) {
    const user = await db.stores.users.createUser(`bench${k}`);
    const id = String(500000000000000000n + BigInt(k));
    await db.stores.users.link('discord', id, user.userId);
    users.push(fake.user(id, `bench${k}`));
  }
  const phase = await measure(`sandpiper`, n, fake, (k) => users[k]!, provider);
  await gateway.stop();
  await runtime.close();
  await fake.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return phase;
}

async function measure(label: string, n: number, fake: FakeDiscord, user: (k: number) => ReturnType<FakeDiscord['user']>, provider?: BenchProvider): Promise<Phase> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const heapBefore = process.memoryUsage().heapUsed;
  lag.enable();
  const started = performance.now();
  const mentionAt = new Map<number, number>();
  const threadOf = new Map<number, string>();
  for (let k = 0; k < n; k += 1) {
    const message = fake.state.injectMessage(CHANNEL, user(k), `bench-${k} please answer`, true);
    mentionAt.set(k, performance.now() - (Date.now() - message.createdAt));
    threadOf.set(k, message.id);
  }
  const expected = (k: number): string => (provider ? answerFor(k) : `echo: bench-${k} please answer`);
  await waitUntil(() => [...threadOf].every(([k, thread]) => finalTime(fake, thread, expected(k)) !== undefined), 600_000);
  const wallMs = performance.now() - started;
  lag.disable();
  const offset = performance.now() - Date.now();
  const firstMs: number[] = [];
  const finalMs: number[] = [];
  let edits = 0;
  for (const [k, thread] of threadOf) {
    const done = (finalTime(fake, thread, expected(k)) ?? 0) + offset;
    edits += fake.state.messagesIn(thread).filter((m) => m.author.bot).reduce((sum, m) => sum + m.edits, 0);
    if (provider) {
      firstMs.push((provider.requestAt.get(k) ?? 0) - (mentionAt.get(k) ?? 0));
      finalMs.push(done - (provider.lastTokenAt.get(k) ?? 0));
    } else {
      firstMs.push(done - (mentionAt.get(k) ?? 0));
    }
  }
  const memory = process.memoryUsage();
  return {
    label, firstMs, finalMs, editsPerMessage: edits / n, lagP99: lag.percentile(99) / 1e6, lagMax: lag.max / 1e6,
    heapMb: (memory.heapUsed - heapBefore) / 2 ** 20, rssMb: memory.rss / 2 ** 20, wallMs,
  };
}

async function runBareBot(n: number): Promise<Phase> {
  const fake = await FakeDiscord.start();
  const client = new Client({
    intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
    partials: [Partials.Channel],
    rest: { api: fake.apiUrl, version: '10' },
  });
  client.on(Events.MessageCreate, (message) => {
    if (message.author.bot || !client.user || !message.mentions.users.has(client.user.id)) return;
    const text = `echo: ${message.content.replace(/<@!?\d+>/g, '').trim()}`;
    void (async () => {
      const thread = (await client.rest.post(Routes.threads(message.channelId, message.id), { body: { name: 'echo' } })) as { id: string };
      const sent = (await client.rest.post(Routes.channelMessages(thread.id), { body: { content: '…' } })) as { id: string };
      await client.rest.patch(Routes.channelMessage(thread.id, sent.id), { body: { content: text } });
    })().catch(() => undefined);
  });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(fake.token);
  await ready;
  const phase = await measure('bare discord.js', n, fake, (k) => fake.user(String(600000000000000000n + BigInt(k)), `u${k}`));
  await client.destroy();
  await fake.close();
  return phase;
}

const pct = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const fmt = (values: number[]): string => (values.length ? `${pct(values, 50).toFixed(0)}/${pct(values, 95).toFixed(0)}/${pct(values, 100).toFixed(0)}` : '-');

console.log('N     | bot             | mention→model req or reply ms p50/p95/max | last token→final edit ms p50/p95/max | edits/thread | loop lag p99/max ms | heap Δ MB | rss MB | wall s');
for (const n of sizes) {
  for (const phase of [await runBareBot(n), await runSandpiper(n)]) {
    console.log(
      `${String(n).padEnd(5)} | ${phase.label.padEnd(15)} | ${fmt(phase.firstMs).padEnd(41)} | ${fmt(phase.finalMs).padEnd(36)} | ` +
        `${phase.editsPerMessage.toFixed(2).padEnd(12)} | ${`${phase.lagP99.toFixed(1)}/${phase.lagMax.toFixed(1)}`.padEnd(19)} | ` +
        `${phase.heapMb.toFixed(1).padEnd(9)} | ${phase.rssMb.toFixed(0).padEnd(6)} | ${(phase.wallMs / 1000).toFixed(1)}`,
    );
  }
}
