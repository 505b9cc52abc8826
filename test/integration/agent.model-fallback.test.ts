/**
 * The fallback model (`models.<alias>.fallback`) through the real SDKs: the primary (OpenAI wire) answers 503s or 429s
 * after every retry, the fallback (Anthropic wire, another fake server) answers, with a note in the turn and the usage
 * recorded under the model that answered; a 400 or a 401 from the primary is never answered by the fallback; a primary
 * nobody listens at (Anthropic wire) is answered by an OpenAI-wire fallback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { streamWithRetries } from '../../src/agent/providers/with-retries.js';
import type { StreamModel } from '../../src/agent/turn/turn-types.js';
import { loadConfig } from '../../src/config/index.js';
import { createAgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { freePort } from '../fakes/mcp-servers.js';
import { createTestStores } from '../helpers/test-stores.js';
import { ofType, record, startHarness, turnEnd, waitFor, type AgentHarness } from './agent.harness.js';

/** streamWithRetries makes four attempts; the fake tells it to retry at once. */
const ATTEMPTS = 4;

describe('fallback model when the primary provider is unreachable', () => {
  let h: AgentHarness;
  let backup: FakeLlmServer;
  before(async () => {
    const primary = await startFakeLlmServer();
    backup = await startFakeLlmServer();
    const models = {
      main: { provider: 'openai', base_url: primary.url, api_key: 'sk-test', model: 'gpt-primary', fallback: 'backup' },
      backup: { provider: 'anthropic', base_url: backup.origin, api_key: 'sk-test', model: 'claude-backup' },
    };
    h = await startHarness('openai', { flags: { models, 'agent.default_model': 'main' } }, primary);
  });
  after(async () => {
    await h.close();
    await backup.close();
  });

  const down = (status: number) => Array.from({ length: ATTEMPTS }, () => ({ status, retryAfterMs: 0 }));

  it('answers with the fallback after 5xx on every retry, says so, and counts the tokens for the model that answered', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'fallback' });
    const events = record(ws);
    h.llm.enqueue(...down(503));
    backup.enqueue({ text: 'BACKUP-ANSWER', usage: { inputTokens: 30, outputTokens: 4 } });
    await ws.send('hello');
    const end = await turnEnd(events, 1);
    assert.deepEqual([end.reason, end.text], ['done', 'BACKUP-ANSWER']);
    assert.equal(h.llm.requests.length, ATTEMPTS);
    const shown = ofType(events, 'text-delta').map((event) => event.text).join('');
    assert.match(shown, /^_Model main is unreachable; answered by backup\._\n\nBACKUP-ANSWER$/);
    assert.equal(ofType(events, 'error').length, 0);
    const today = new Date().toISOString().slice(0, 10);
    const lines = await waitFor(async () => {
      const found = await h.db.stores.usage.report('model', today);
      return found.length > 0 && found;
    }, 'the usage row');
    assert.deepEqual(lines.map((line) => [line.key, line.inputTokens, line.outputTokens]), [['claude-backup', 30, 4]]);
  });

  it('falls back on 429 too, and stays on the fallback for the rest of the turn', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'rate limited' });
    const events = record(ws);
    const before = h.llm.requests.length;
    h.llm.enqueue(...down(429));
    const backupBefore = backup.requests.length;
    // A tool call (of a tool that does not exist: answered with an error result) makes a second model call in the turn.
    backup.enqueue({ toolCalls: [{ name: 'no_such_tool', arguments: '{}' }] }, { text: 'STILL-HERE' });
    await ws.send('hello again');
    assert.equal((await turnEnd(events, 1)).text, 'STILL-HERE');
    assert.equal(h.llm.requests.length - before, ATTEMPTS, 'the primary is not tried again within the turn');
    assert.equal(backup.requests.length - backupBefore, 2);
    assert.equal(ofType(events, 'text-delta').filter((event) => event.text.includes('unreachable')).length, 1);
  });

  it('never falls back on a bad request or a refused key: those fail as before', async () => {
    const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'client errors' });
    const events = record(ws);
    const backupRequests = backup.requests.length;
    h.llm.enqueue({ status: 400, errorMessage: 'bad tool schema' });
    await ws.send('one');
    assert.equal((await turnEnd(events, 1)).reason, 'error');
    h.llm.enqueue({ status: 401, errorMessage: 'invalid key' });
    await ws.send('two');
    assert.equal((await turnEnd(events, 2)).reason, 'error');
    assert.deepEqual(ofType(events, 'error').map((event) => event.message), ['The model request failed (HTTP 400). Please try again later.', 'The model request failed (HTTP 401). Please try again later.']);
    assert.equal(backup.requests.length, backupRequests, 'the fallback was never called');
    assert.ok(!ofType(events, 'text-delta').some((event) => event.text.includes('unreachable')));
  });
});

describe('fallback model when nothing listens at the primary', () => {
  it('a refused connection (after the retries, here without their backoff) is answered by the fallback', async () => {
    const backup = await startFakeLlmServer();
    const db = await createTestStores();
    const dir = mkdtempSync(join(tmpdir(), 'sp-fallback-'));
    const models = {
      main: { provider: 'anthropic', base_url: `http://127.0.0.1:${await freePort()}`, api_key: 'sk-test', model: 'claude-primary', fallback: 'backup' },
      backup: { provider: 'openai', base_url: backup.url, api_key: 'sk-test', model: 'gpt-backup' },
    };
    const config = loadConfig({ cwd: dir, env: {}, flags: { 'gateway.data_dir': dir, models, 'agent.default_model': 'main' } });
    // The same retries as production, without waiting between them (the backoff is not what this test is about).
    const streamModel: StreamModel = (provider, request, options) => streamWithRetries(provider, request, { signal: options.signal, baseDelayMs: 1 });
    const runtime = await createAgentRuntime(config, db.stores, createSilentLogger(), { evictIntervalMs: 0, toolSources: [], streamModel });
    try {
      const owner = await db.stores.users.createUser('alice');
      const ws = await runtime.manager.create({ ownerUserId: owner.userId, name: 'refused' });
      const events = record(ws);
      backup.enqueue({ text: 'FROM-BACKUP' });
      await ws.send('anyone there?');
      const end = await turnEnd(events, 1);
      assert.deepEqual([end.reason, end.text], ['done', 'FROM-BACKUP']);
      assert.match(ofType(events, 'text-delta')[0]?.text ?? '', /^_Model main is unreachable; answered by backup\._/);
    } finally {
      await runtime.close();
      await db.close();
      await backup.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
