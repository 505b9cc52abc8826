/**
 * Two real `sandpiper start` processes on one PostgreSQL (ADR 0021), both connected to the same fake Discord shard,
 * so every event reaches both and the dedup ledger gives each to one of them at random. A workstream still runs on
 * one instance: messages and clicks that land on the other are handed to the lease holder, each answered once and in
 * order; a click is answered once and its approved call runs once; after a graceful stop of the holder (at once) or
 * a SIGKILL (once its lease expires) the other instance takes the workstream over and answers the interrupted question once.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer, type ScriptedResponse } from '../fakes/fake-llm-server.js';
import { waitFor } from '../fakes/mcp-servers.js';
import { answerCounts, lastUserTag } from '../helpers/echo-answers.js';
import { GatewayProcesses } from '../helpers/gateway-process.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../helpers/throwaway-postgres.js';
import { testPostgresUrl } from '../helpers/test-stores.js';

const CHANNEL_ID = '300000000000000001';
const USER_ID = '400000000000000071';

function botTexts(discord: FakeDiscord, threadId: string): string[] {
  return discord.state
    .messagesIn(threadId)
    .filter((message) => message.author.id === discord.state.bot.id)
    .map((message) => message.content);
}

function button(message: FakeMessage, label: string): string | undefined {
  for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
    const found = row.components?.find((component) => component.label === label);
    if (found?.custom_id) return found.custom_id;
  }
  return undefined;
}

/** `q-…-tool` asks for a bash call that appends its call id to `ran.txt`; the answer after a tool result names it. */
function scripted(workspaceLog: string): (body: unknown) => ScriptedResponse {
  return (body) => {
    const tag = lastUserTag(body) ?? 'untagged';
    const messages = (body as { messages?: Array<{ role?: string }> }).messages ?? [];
    if (messages.at(-1)?.role === 'tool') return { text: `answer to ${tag}` };
    if (tag.endsWith('-tool')) {
      const command = `echo call_${tag} >> ${workspaceLog}`;
      return { toolCalls: [{ id: `call_${tag}`, name: 'bash', arguments: JSON.stringify({ command }) }] };
    }
    // A long answer that never finishes: on a loaded machine a finite one (8 s) could complete before the stop or the
    // kill lands, and a committed answer is shown as it is (no note, no resumption), which is not what these test.
    if (tag.endsWith('-long'))
      return { text: Array.from({ length: 80 }, (_, index) => `w${index} `).join(''), delayMs: 100, hang: true };
    return { text: `answer to ${tag}` };
  };
}

const pgUrl = testPostgresUrl();
describe(
  'two instances on one PostgreSQL share the workstreams through leases',
  { skip: pgUrl === undefined ? 'SANDPIPER_TEST_PG_URL not set' : false },
  () => {
    let discord: FakeDiscord;
    let llm: FakeLlmServer;
    let database: ThrowawayDatabase;
    let instances: GatewayProcesses[];
    let user: FakeUser;
    let ranLog: string;
    let shared: string;
    const urls: string[] = [];

    before(async () => {
      [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
      database = (await createThrowawayDatabase('sp_leases')) as ThrowawayDatabase;
      // One workspace folder for both: a workstream taken over keeps its files.
      shared = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-leases-'));
      ranLog = path.join(shared, 'ran.txt');
      appendFileSync(ranLog, '');
      llm.fallback = scripted(ranLog);
      const extraToml = `[tools]\nsandbox = "off"\n\n[agent]\nworkspace_dir = "${shared}"\n\n[cluster]\nheartbeat_s = 1\nlease_ttl_s = 3\n`;
      // Both run shard 0 (fixed shards take no lease, ADR 0022), so messages land on both and the handoffs are exercised.
      const discordToml = 'shards = [0]';
      instances = [0, 1].map(
        () =>
          new GatewayProcesses({
            llm,
            discord,
            databaseUrl: database.url,
            extraToml,
            discordToml,
            gatewayToml: 'user_rate_limit = 1000',
          }),
      );
      // One after the other: the first runs the migrations.
      for (const instance of instances) urls.push((await instance.start()).url);
      await instances[0]?.linkUser('discord', USER_ID, 'lena');
      user = discord.user(USER_ID, 'lena');
    });
    after(async () => {
      if (process.env.SANDPIPER_TEST_DUMP === '1')
        for (const instance of instances ?? []) console.log(instance.output());
      for (const instance of instances ?? []) await instance.close();
      await Promise.allSettled([discord?.close(), llm?.close()]);
      await database?.drop();
      if (shared) rmSync(shared, { recursive: true, force: true });
    });

    async function mention(tag: string): Promise<string> {
      const message = discord.state.injectMessage(CHANNEL_ID, user, `please ${tag}`, true);
      await discord.waitFor(() => discord.state.channels.get(message.id), 20_000, 'thread creation');
      return message.id;
    }

    it('answers every message once, in order, with each workstream run by one instance', async () => {
      const threads = await Promise.all(Array.from({ length: 8 }, (_, index) => mention(`q-t${index}`)));
      await Promise.all(
        threads.map((threadId, index) =>
          discord.waitFor(
            () => botTexts(discord, threadId).includes(`answer to q-t${index}`),
            30_000,
            `answer ${index}`,
          ),
        ),
      );
      // Follow-ups one after the other in each thread (two messages racing to two instances have no order to keep).
      await Promise.all(
        threads.map(async (threadId, index) => {
          for (const suffix of ['a', 'b']) {
            discord.state.injectMessage(threadId, user, `then q-t${index}-${suffix}`);
            await discord.waitFor(
              () => botTexts(discord, threadId).includes(`answer to q-t${index}-${suffix}`),
              30_000,
              `follow-up ${suffix} of ${index}`,
            );
          }
        }),
      ).catch((error: unknown) => {
        throw new Error(
          `${String(error)}: ${threads.map((threadId) => botTexts(discord, threadId).join(' | ')).join('\n')}`,
        );
      });
      for (const [index, threadId] of threads.entries()) {
        const texts = botTexts(discord, threadId);
        const counts = answerCounts(texts);
        assert.deepEqual(
          [...counts.values()],
          [1, 1, 1],
          `thread ${index} answered each message once: ${texts.join(' | ')}`,
        );
        const order = texts.filter((text) => text.startsWith('answer to'));
        assert.deepEqual(
          order,
          [`answer to q-t${index}`, `answer to q-t${index}-a`, `answer to q-t${index}-b`],
          'in the order they were sent',
        );
      }
      const db = instances[0]?.db();
      const handedOver = async (): Promise<number> =>
        Number(((await db?.('cluster_handoffs').count({ n: '*' }))?.[0] as { n: string | number }).n);
      // Which instance claims a message first is a race. In a run where the holders won every one so far, more rounds
      // of follow-ups (one per thread, at once) go out until one lands on the other instance, each answered once.
      for (let round = 0; round < 5 && (await handedOver()) === 0; round++) {
        await Promise.all(
          threads.map(async (threadId, index) => {
            const tag = `q-t${index}-x${round}`;
            discord.state.injectMessage(threadId, user, `then ${tag}`);
            await discord.waitFor(
              () => botTexts(discord, threadId).includes(`answer to ${tag}`),
              30_000,
              `extra follow-up ${round} of ${index}`,
            );
            assert.equal(
              answerCounts(botTexts(discord, threadId)).get(tag),
              1,
              `extra follow-up ${round} of ${index} answered once`,
            );
          }),
        );
      }
      assert.ok((await handedOver()) > 0, 'messages that landed on the other instance were handed to the holder');
    });

    it('answers every click once, runs each approved call once and never a rejected one', async () => {
      const tags = ['q-c0-tool', 'q-c1-tool', 'q-c2-tool', 'q-c3-tool'];
      const threads = await Promise.all(tags.map((tag) => mention(tag)));
      const cards = await Promise.all(
        threads.map((threadId) =>
          discord.waitFor(
            () => discord.state.messagesIn(threadId).find((message) => button(message, 'Approve') !== undefined),
            30_000,
            'approval card',
          ),
        ),
      );
      const clicks = cards.map((card, index) =>
        discord.state.clickButton(card.id, button(card, index === 3 ? 'Reject' : 'Approve') ?? '', user),
      );
      await Promise.all(
        threads
          .slice(0, 3)
          .map((threadId, index) =>
            discord.waitFor(
              () => botTexts(discord, threadId).includes(`answer to ${tags[index]}`),
              30_000,
              `answer after approval ${index}`,
            ),
          ),
      );
      await discord.waitFor(() => clicks.every((click) => click.callbacks.length > 0), 10_000, 'every click answered');
      const ran = readFileSync(ranLog, 'utf8').trim().split('\n').filter(Boolean).sort();
      assert.deepEqual(
        ran,
        ['call_q-c0-tool', 'call_q-c1-tool', 'call_q-c2-tool'],
        'each approved call ran once; the rejected one never',
      );
      // Both instances hold the one shard here, so both acknowledge each click (Discord gives it to both); with shards
      // leased (one holder each) only one instance gets it. What counts is that the decision was applied once.
    });

    it('a graceful stop of the holder hands the interrupted turn over at once; the other instance answers it once', async () => {
      const threadId = await mention('q-g0-long');
      await discord.waitFor(
        () => botTexts(discord, threadId).some((text) => text.includes('w5 ')),
        30_000,
        'the streaming answer',
      );
      const db = instances[0]?.db();
      const route = await instances[0]?.stores().routes.getRoute('discord', threadId);
      type LeaseRow = { holder: string; expires_at: number | string };
      const leaseOf = async (): Promise<LeaseRow | undefined> =>
        (await db?.('workstream_leases').where({ workstream_id: route?.wsId }).first()) as LeaseRow | undefined;
      const holder = (await leaseOf())?.holder ?? '';
      const holderIndex = await indexOfHolder(holder);
      const stoppedAt = Date.now();
      assert.equal(await instances[holderIndex]?.stop(), 0);
      // Not left to run out its TTL (it was renewed under a second ago): released or expired by the stop, or taken over.
      const handed = await leaseOf();
      assert.ok(
        handed === undefined || handed.holder !== holder || Number(handed.expires_at) <= Date.now(),
        `lease after the stop: ${JSON.stringify(handed)}`,
      );
      await discord.waitFor(
        () => botTexts(discord, threadId).some((text) => /Interrupted by a restart/.test(text)),
        30_000,
        'the note from the taker-over',
      );
      console.log(
        `graceful stop: the interrupted turn was taken over ${Date.now() - stoppedAt} ms after SIGTERM (lease_ttl_s = 3, heartbeat_s = 1)`,
      );
      await waitFor(
        async () => (await db?.('turn_journal').where({ ws_id: route?.wsId }).select('turn_id'))?.length === 0,
        'the resumed turn to finish',
        30_000,
      );
      assert.notEqual((await leaseOf())?.holder, holder, 'the other instance holds it now');
      assert.equal(
        botTexts(discord, threadId).filter((text) => text === 'answer to untagged').length,
        1,
        'the resumed answer, once',
      );
      // Back to two instances for the next test.
      urls[holderIndex] = (await instances[holderIndex]?.start())?.url ?? '';
    });

    it('takes over the workstream of a killed holder and answers the interrupted question once', async () => {
      const threadId = await mention('q-k0-long');
      await discord.waitFor(
        () => botTexts(discord, threadId).some((text) => text.includes('w5 ')),
        30_000,
        'the streaming answer',
      );
      const db = instances[0]?.db();
      const route = await instances[0]?.stores().routes.getRoute('discord', threadId);
      const lease = (await db?.('workstream_leases').where({ workstream_id: route?.wsId }).first()) as {
        holder: string;
      };
      const holderIndex = await indexOfHolder(lease.holder);
      const killedAt = Date.now();
      await instances[holderIndex]?.kill();
      await discord.waitFor(
        () => botTexts(discord, threadId).some((text) => /Interrupted by a restart/.test(text)),
        30_000,
        'the note from the taker-over',
      );
      const failoverMs = Date.now() - killedAt;
      console.log(
        `failover: the interrupted turn was taken over ${failoverMs} ms after SIGKILL (lease_ttl_s = 3, heartbeat_s = 1)`,
      );
      await waitFor(
        async () => (await db?.('turn_journal').where({ ws_id: route?.wsId }).select('turn_id'))?.length === 0,
        'the resumed turn to finish',
        30_000,
      );
      const after = (await db?.('workstream_leases').where({ workstream_id: route?.wsId }).first()) as
        { holder: string } | undefined;
      assert.notEqual(after?.holder, lease.holder, 'the other instance holds it now');
      assert.ok(failoverMs < 30_000);
      assert.equal(
        botTexts(discord, threadId).filter((text) => text === 'answer to untagged').length,
        1,
        'the resumed answer, once',
      );
    });

    async function indexOfHolder(holder: string): Promise<number> {
      const services = (await instances[0]?.db()('services').select('service_id', 'url')) as Array<{
        service_id: string;
        url: string;
      }>;
      const url = services.find((service) => service.service_id === holder)?.url;
      const index = urls.findIndex((entry) => entry === url);
      assert.ok(index >= 0, `the holder ${holder} is one of the instances`);
      return index;
    }
  },
);
