/**
 * The prompt-template admin API on a real database: create, edit and delete manual templates (audited), read-only
 * MCP-owned ones (403), bad input refused without a write.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Hono } from 'hono';
import { createHttpApp } from '../../src/gateway/http/app.js';
import { mintAdminToken } from '../../src/gateway/http/auth.js';
import { createHttpMetrics } from '../../src/gateway/http/metrics.js';
import { createAdminRoutes } from '../../src/gateway/http/routes/admin.js';
import { EMPTY_MCP_HEALTH } from '../../src/gateway/http/routes/health.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';

const SECRET = 'a'.repeat(40);

describe('prompt-template admin API', () => {
  let db: TestStores;
  let app: Hono;
  let write: Record<string, string>;
  let read: Record<string, string>;

  before(async () => {
    db = await createTestStores();
    app = createHttpApp({
      logger: createSilentLogger(),
      metrics: createHttpMetrics({ workstreams: () => ({ active: 0, running: 0 }), subscriptions: () => 0 }),
      health: { adapters: () => ({}), mcp: () => EMPTY_MCP_HEALTH },
      routers: [createAdminRoutes({ adminSecret: SECRET, stores: db.stores, staleAfterSeconds: 60 })],
    });
    write = {
      authorization: `Bearer ${await mintAdminToken(SECRET, { subject: 'ops', scopes: ['admin:write'] })}`,
      'content-type': 'application/json',
    };
    read = { authorization: `Bearer ${await mintAdminToken(SECRET, { subject: 'viewer', scopes: ['admin:read'] })}` };
  });
  after(async () => {
    await db.close();
  });

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    app.request(`/v1/api/admin/templates${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  it('creates, edits, lists and deletes a manual template, each change audited', async () => {
    const created = await call('POST', '', write, {
      name: 'review',
      content: 'Review {{file}} carefully.',
      variables: ['file'],
      category: 'code',
    });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { template: { created_by: string } }).template.created_by, 'api:ops');
    assert.equal((await call('POST', '', write, { name: 'review', content: 'again' })).status, 409);
    const edited = await call('PATCH', '/review', write, { content: 'Review {{file}} briefly.', is_default: true });
    assert.equal(edited.status, 200);
    assert.equal((await db.stores.promptTemplates.getByName('review'))?.content, 'Review {{file}} briefly.');
    const listed = (await (await call('GET', '', read)).json()) as {
      templates: Array<{ name: string; is_default: boolean }>;
    };
    assert.deepEqual(
      listed.templates.map((t) => [t.name, t.is_default]),
      [['review', true]],
    );
    assert.equal((await call('PATCH', '/review', read, { content: 'x' })).status, 403, 'admin:read cannot change');
    assert.equal((await call('DELETE', '/review', write)).status, 200);
    assert.equal(await db.stores.promptTemplates.getByName('review'), undefined);
    assert.equal((await call('DELETE', '/review', write)).status, 404);
    const actions = (await db.stores.adminAudit.list(20)).map((row) => row.action);
    for (const action of ['template.create', 'template.edit', 'template.delete'])
      assert.ok(actions.includes(action), action);
  });

  it('refuses to edit or delete a template synced from an MCP server (403), and keeps it', async () => {
    await db.stores.promptTemplates.create({
      name: 'mcp__docs__summary',
      content: 'Summarise.',
      origin: 'mcp',
      mcpServer: 'docs',
      readonly: true,
    });
    const edit = await call('PATCH', '/mcp__docs__summary', write, { content: 'changed' });
    assert.equal(edit.status, 403);
    assert.match(((await edit.json()) as { error: string }).error ?? JSON.stringify(edit), /read-only/);
    assert.equal((await call('DELETE', '/mcp__docs__summary', write)).status, 403);
    assert.equal((await db.stores.promptTemplates.getByName('mcp__docs__summary'))?.content, 'Summarise.');
  });

  it('answers bad input with 400 and writes nothing', async () => {
    for (const body of [
      { name: 'x' },
      { name: 'bad name!', content: 'c' },
      { name: 'y', content: 'c', extra: 1 },
      { name: 'z', content: 'x'.repeat(40_000) },
    ]) {
      assert.equal((await call('POST', '', write, body)).status, 400, JSON.stringify(body).slice(0, 60));
    }
    await db.stores.promptTemplates.create({ name: 'keep', content: 'k' });
    assert.equal((await call('PATCH', '/keep', write, {})).status, 400);
    assert.deepEqual(
      (await db.stores.promptTemplates.list('manual')).map((t) => t.name),
      ['keep'],
    );
  });
});
