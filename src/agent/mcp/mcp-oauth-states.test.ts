/** A waiting authorization when its row cannot be read: it keeps waiting, logs once, and still ends as the row says. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createTestStores, type TestStores } from '../../../test/helpers/test-stores.js';
import { createLogger } from '../../shared/logger.js';
import type { McpOAuthStateStore } from '../../storage/mcp-oauth-state-store.js';
import { AuthorizationStates, AuthorizationWaitError, hashState } from './mcp-oauth-states.js';
import { McpOAuthVault } from './mcp-oauth-vault.js';
import { createTokenCipher } from './mcp-token-cipher.js';

const BINDING = { server: 'docs', userId: 'u1', conversationId: 'ws1' };

/** The real store, whose `get` fails the next `failures` times (a database that is briefly unreachable). */
function flakyReads(store: McpOAuthStateStore, failures: { left: number; tried: number }): McpOAuthStateStore {
  return {
    create: (row, pruneBefore) => store.create(row, pruneBefore),
    setVerifier: (stateHash, verifier) => store.setVerifier(stateHash, verifier),
    consume: (stateHash, now) => store.consume(stateHash, now),
    settle: (stateHash, outcome, unsettled) => store.settle(stateHash, outcome, unsettled),
    get: async (stateHash) => {
      failures.tried += 1;
      if (failures.left <= 0) return store.get(stateHash);
      failures.left -= 1;
      throw new Error('connection refused');
    },
  };
}

function logLines(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}

describe('AuthorizationStates.waitFor when the row cannot be read', () => {
  let db: TestStores;
  before(async () => {
    db = await createTestStores();
  });
  after(() => db.close());

  function states(failures: { left: number; tried: number }, destination: Writable): AuthorizationStates {
    const vault = new McpOAuthVault(db.stores.mcpCredentials, createTokenCipher('test-key-0123456789abcdef'));
    const store = flakyReads(db.stores.mcpOAuthStates, failures);
    return new AuthorizationStates({
      store,
      vault,
      ttlMs: 60_000,
      pollMs: 1,
      logger: createLogger({ format: 'json', destination }),
    });
  }

  it('keeps waiting through failed reads, logs once without the state, and ends as another instance settled it', async () => {
    const failures = { left: 5, tried: 0 };
    const { lines, destination } = logLines();
    const waiting = states(failures, destination);
    const state = await waiting.issue(BINDING);
    const wait = waiting.waitFor(hashState(state), 60_000, new AbortController().signal);
    // Another instance (its own AuthorizationStates on the same database) records the user's Decline.
    await db.stores.mcpOAuthStates.settle(hashState(state), 'declined');
    const ended = await wait.then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(ended instanceof AuthorizationWaitError, 'the wait ends with the outcome the row holds');
    assert.equal(ended.ending, 'declined');
    assert.ok(failures.tried > 5, 'it read again after the failures');
    const warnings = lines.filter((line) => line.msg === 'MCP authorization state could not be read; still waiting');
    assert.equal(warnings.length, 1, 'one line per wait, not one per tick');
    assert.equal(warnings[0]?.err, 'connection refused');
    assert.equal(JSON.stringify(lines).includes(state), false, 'the state is not logged');
  });

  it('is still woken at once by its own instance while reads fail', async () => {
    const failures = { left: Number.POSITIVE_INFINITY, tried: 0 };
    const { destination } = logLines();
    const waiting = states(failures, destination);
    const state = await waiting.issue(BINDING);
    const wait = waiting.waitFor(hashState(state), 60_000, new AbortController().signal);
    assert.equal(await waiting.settle(hashState(state), 'authorized'), true);
    await wait;
  });
});
