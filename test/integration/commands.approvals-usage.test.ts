/**
 * `approvals list | grants | history` and `usage` in-process (runCli, as the bin runs them) on a fresh database whose
 * approval and usage rows the test seeds through the stores.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertUsage, json, startAdminCli, type AdminCli } from '../helpers/admin-cli.js';
import { addPendingApproval, addUsage } from '../helpers/admin-seed.js';

let admin: AdminCli;
const cli = (...args: string[]): ReturnType<AdminCli['cli']> => admin.cli(...args);

before(async () => {
  admin = await startAdminCli('sp-admin-approvals-');
  assert.equal((await cli('user', 'add', 'alice', '--admin')).code, 0);
  assert.equal((await cli('user', 'add', 'bob')).code, 0);
});
after(() => admin.close());

describe('approval and usage commands', () => {
  it('lists pending approvals with their age and waiting tools', async () => {
    assert.match((await cli('approvals', 'list')).stdout, /^no pending approvals/);
    await admin.withStores((stores) =>
      addPendingApproval(stores, {
        approvalId: 'ap1',
        wsId: 'ws1',
        turnId: 't1',
        owner: 'alice',
        calls: [
          { name: 'bash', status: 'ask', item: { approvalLabel: 'bash' } },
          { name: 'read_file', status: 'run' },
        ],
      }),
    );
    const { approvals } = json<{ approvals: Array<{ approval_id: string; tools: string[]; age_seconds: number }> }>(
      await cli('approvals', 'list', '--json'),
    );
    assert.deepEqual(
      approvals.map((approval) => [approval.approval_id, approval.tools]),
      [['ap1', ['bash']]],
    );
    assert.ok(approvals[0] !== undefined && approvals[0].age_seconds >= 0);
    assert.match(
      (await cli('approvals', 'list')).stdout,
      /^AGE\s+APPROVAL_ID\s+OWNER.*\n\d+s\s+ap1\s+alice\s+ws1\s+tools\s+bash/,
    );
  });

  it('adds, lists and revokes approval grants and shows who decided which approval', async () => {
    const added = json<{ grant: { grant_id: string; target: string; status: string } }>(
      await cli('approvals', 'grants', 'add', 'user', 'bob', 'bash', '--args', 'git *', '--expires', '7d', '--json'),
    );
    assert.deepEqual([added.grant.target, added.grant.status], ['bob', 'active']);
    assert.match(
      (await cli('approvals', 'grants', 'list')).stdout,
      new RegExp(`^GRANT_ID.*\\n${added.grant.grant_id}\\s+active\\s+user\\s+bob\\s+bash\\s+git \\*`),
    );
    assertUsage(
      await cli('approvals', 'grants', 'add', 'team', 'bob', 'bash'),
      /scope must be conversation, user or channel/,
    );
    assert.match((await cli('approvals', 'grants', 'revoke', added.grant.grant_id)).stdout, /^revoked grant /);

    await admin.withStores(async (stores) => {
      const alice = await addPendingApproval(stores, {
        approvalId: 'ap2',
        wsId: 'ws2',
        turnId: 't2',
        owner: 'alice',
        calls: [{ name: 'bash', status: 'ask', item: { approvalLabel: 'bash' } }],
      });
      await stores.approvals.resolve('ap2', { approved: true, always: true, feedback: null, decidedBy: alice });
      assert.equal((await stores.grants.list({ all: true, now: '2000-01-01T00:00:00' }))[0]?.revokedBy, 'cli');
    });
    assert.match(
      (await cli('approvals', 'history')).stdout,
      /^DECIDED\s+OUTCOME\s+DECIDED_BY.*\n\S+\s+always\s+alice\s+alice\s+tools\s+bash\s+ap2/,
    );
  });

  it('usage lists tokens per user, model or conversation and day, and refuses a bad grouping or time', async () => {
    await admin.withStores((stores) => addUsage(stores, 'bob'));
    const { usage } = json<{
      usage: Array<{ key: string; label: string; turns: number; input_tokens: number; output_tokens: number }>;
    }>(await cli('usage', '--json'));
    assert.deepEqual(
      usage.map((line) => [line.label, line.turns, line.input_tokens, line.output_tokens]),
      [['bob', 2, 1200, 80]],
    );
    assert.match(
      (await cli('usage', '--by', 'conversation')).stdout,
      /^DAY\s+KEY\s+LABEL\s+TURNS\s+INPUT\s+OUTPUT\s+CACHED\n\S+\s+ws-usage\s+Budget talk\s+2\s+1200\s+80\s+300/,
    );
    const all = json<{ usage: Array<{ key: string; day: string }> }>(
      await cli('usage', '--by', 'model', '--since', '2000-01-01', '--json'),
    );
    assert.deepEqual(
      all.usage.map((line) => line.key),
      ['gpt-x', 'gpt-x'],
    );
    assertUsage(await cli('usage', '--by', 'team'), /by: /);
    assertUsage(await cli('usage', '--since', 'yesterday'), /since: /);
  });
});
