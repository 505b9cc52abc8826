/**
 * `sandpiper user remove` (ADR 0046): a removed user leaves no row and no folder behind. Once end to end over the real
 * discord.js client (a conversation with an approval, an "Always" grant, a memory, a link and a token), and on both
 * engines with every kind of row seeded through the stores; every table is then scanned for the user's ids.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { removeUser, setUserDisabled } from '../../src/gateway/admin/admin-user-lifecycle.js';
import { generateApiToken, hashApiToken } from '../../src/shared/api-token.js';
import { isPostgres, type Knex, type Stores } from '../../src/storage/index.js';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import { createTestStores, testPostgresUrl } from '../helpers/test-stores.js';

/** Every row of every table (migration bookkeeping aside), as JSON text. */
async function everyRow(knex: Knex): Promise<string> {
  const tables = isPostgres(knex)
    ? (
        (await knex.raw(
          `select table_name as name from information_schema.tables where table_schema = current_schema()`,
        )) as { rows: { name: string }[] }
      ).rows
    : ((await knex.raw(`select name from sqlite_master where type = 'table'`)) as { name: string }[]);
  const dumps: string[] = [];
  for (const { name } of tables) {
    if (name.startsWith('knex_') || name.startsWith('sqlite_')) continue;
    dumps.push(`${name}: ${JSON.stringify(await knex(name).select())}`);
  }
  return dumps.join('\n');
}

function assertGone(dump: string, needles: readonly string[]): void {
  for (const needle of needles)
    assert.ok(
      !dump.includes(needle),
      `${needle} is still stored:\n${dump
        .split('\n')
        .filter((line) => line.includes(needle))
        .join('\n')
        .slice(0, 2000)}`,
    );
}

/** Seeds one row of each kind a user owns, and a neighbour whose rows must stay. */
async function seed(
  stores: Stores,
  knex: Knex,
  workspaceDir: string,
): Promise<{ userId: string; wsId: string; keepWs: string }> {
  const user = await stores.users.createUser('doomed');
  const other = await stores.users.createUser('keeper');
  await stores.users.link('discord', '400000000000009001', user.userId);
  await stores.users.createToken({
    userId: user.userId,
    tokenHash: hashApiToken(generateApiToken()),
    scopes: ['read'],
    expires: null,
  });
  const wsId = 'ws0doomed0000001';
  const keepWs = 'ws0keeper0000001';
  await stores.workstreams.create(
    { wsId, userId: user.userId, name: 'doomed chat', modelAlias: '' },
    { route: { channelType: 'discord', channelId: '500000000000009001' } },
  );
  await stores.workstreams.create({ wsId: keepWs, userId: other.userId, name: 'kept', modelAlias: '' });
  await stores.settleWrites?.();
  await stores.conversations.append(wsId, { role: 'user', content: 'secret plans of doomed' });
  await stores.approvals.create({
    approvalId: 'ap0doomed',
    wsId,
    turnId: 't0doomed',
    kind: 'tools',
    ownerUserId: user.userId,
    items: {},
  });
  await stores.approvals.create({
    approvalId: 'ap0keeper',
    wsId: keepWs,
    turnId: 't0keeper',
    kind: 'tools',
    ownerUserId: other.userId,
    items: {},
  });
  await stores.approvals.resolve('ap0keeper', {
    approved: true,
    always: false,
    feedback: null,
    decidedBy: user.userId,
  });
  await stores.grants.create({ scope: 'user', scopeKey: user.userId, label: 'bash', createdBy: user.userId });
  await stores.grants.create({ scope: 'conversation', scopeKey: wsId, label: 'bash', createdBy: user.userId });
  await stores.grants.create({ scope: 'conversation', scopeKey: keepWs, label: 'read_file', createdBy: user.userId });
  await stores.memories.create({
    name: 'doomed-pref',
    description: '',
    type: 'user',
    scope: 'user',
    scopeId: user.userId,
    content: 'likes tea',
  });
  await stores.memories.create({
    name: 'doomed-ws',
    description: '',
    type: 'project',
    scope: 'workstream',
    scopeId: wsId,
    content: 'x',
  });
  await knex('notify_deliveries').insert({
    delivery_id: 'nd0doomed',
    ws_id: wsId,
    channel_type: 'discord',
    channel_id: '500000000000009001',
    message_id: 'm1',
    created: '2026-01-01T00:00:00',
  });
  await knex('inbound_events').insert({
    platform: 'discord',
    event_key: 'ev0doomed',
    channel_id: '500000000000009001',
    message_id: 'm2',
    sort_key: 'm2',
    received_at: Date.now(),
  });
  await stores.settleWrites?.();
  mkdirSync(path.join(workspaceDir, wsId), { recursive: true });
  writeFileSync(path.join(workspaceDir, wsId, 'notes.txt'), 'doomed');
  mkdirSync(path.join(workspaceDir, keepWs), { recursive: true });
  return { userId: user.userId, wsId, keepWs };
}

const engines = [
  { name: 'sqlite', url: undefined as string | undefined },
  ...(testPostgresUrl() ? [{ name: 'postgres', url: testPostgresUrl() }] : []),
];

describe('user remove', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  for (const engine of engines) {
    it(`leaves no row or folder of the user behind, and keeps everyone else's (${engine.name})`, async () => {
      const db = await createTestStores(engine.url === undefined ? {} : { url: engine.url });
      const workspaceDir = mkdtempSync(path.join(tmpdir(), 'sp-remove-'));
      dirs.push(workspaceDir);
      try {
        const { userId, wsId, keepWs } = await seed(db.stores, db.knex, workspaceDir);
        const removed = await removeUser(db.stores, 'doomed', workspaceDir);
        assert.deepEqual([removed.conversations, removed.folders], [1, 1]);
        assertGone(await everyRow(db.knex), [
          userId,
          wsId,
          'doomed',
          '400000000000009001',
          '500000000000009001',
          'likes tea',
        ]);
        assert.equal(existsSync(path.join(workspaceDir, wsId)), false);
        assert.equal(existsSync(path.join(workspaceDir, keepWs)), true);
        assert.equal((await db.stores.approvals.get('ap0keeper'))?.decidedBy, 'removed-user');
        assert.equal((await db.stores.grants.list({ all: true, now: '2000-01-01T00:00:00' })).length, 1);
        await assert.rejects(removeUser(db.stores, 'doomed', workspaceDir), /no user named doomed/);
      } finally {
        await db.close();
      }
    });
  }

  it('a disabled user is refused on Discord and gets in again once enabled', async () => {
    const h = await DiscordHarness.start();
    try {
      const { user } = await h.linkedUser('400000000000009201', 'paused');
      await setUserDisabled(h.db.stores, 'paused', true);
      const refused = h.fake.state.slashCommand('grants', CHANNEL_ID, user);
      assert.match(
        await h.fake.waitFor(() => h.fake.state.interactions.get(refused.id)?.reply, 15_000, 'refusal'),
        /not linked/,
      );
      await setUserDisabled(h.db.stores, 'paused', false);
      const allowed = h.fake.state.slashCommand('grants', CHANNEL_ID, user);
      assert.match(
        await h.fake.waitFor(() => h.fake.state.interactions.get(allowed.id)?.reply, 15_000, 'answer'),
        /No standing approvals of yours/,
      );
    } finally {
      await h.close();
    }
  });

  it('removes a user after a real Discord conversation: thread, approval, grant, folder, link', async () => {
    const h = await DiscordHarness.start();
    try {
      const { user, userId } = await h.linkedUser('400000000000009101', 'gone');
      h.llm.enqueue(
        { toolCalls: [{ id: 'call_rm', name: 'bash', arguments: JSON.stringify({ command: 'echo hi > mine.txt' }) }] },
        { text: 'wrote it' },
      );
      const { threadId } = await h.mention(user, 'write a file');
      const card = await h.fake.waitFor(() => h.cards(threadId)[0], 20_000, 'card');
      h.fake.state.clickButton(card.id, h.button(card, 'Always') ?? '', user);
      await h.fake.waitFor(() => h.textMessages(threadId).find((m) => m.content === 'wrote it'), 20_000, 'answer');
      const [ws] = await h.db.stores.workstreams.list({ userId });
      assert.ok(ws !== undefined);
      await h.runtime.manager.close(ws.wsId, 'test');
      await h.db.stores.settleWrites?.();
      assert.equal(existsSync(path.join(h.config.agent.workspace_dir, ws.wsId)), true, 'the conversation had a folder');
      const removed = await removeUser(h.db.stores, 'gone', h.config.agent.workspace_dir);
      assert.equal(removed.conversations, 1);
      assertGone(await everyRow(h.db.knex), [userId, ws.wsId, threadId, '400000000000009101']);
      assert.equal(existsSync(path.join(h.config.agent.workspace_dir, ws.wsId)), false);
    } finally {
      await h.close();
    }
  });
});
