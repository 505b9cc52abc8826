import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssistantMessage, ToolCall } from '../messages.js';
import { createFakeTurnContext, FakeToolSource, type FakeTurnContext } from '../../../test/fakes/fake-turn-context.js';
import { applyDecision, approveToolCalls, decideWithoutAsking } from './approve-tool-calls.js';
import { prepareToolCalls, type PreparedCall } from './prepare-tool-calls.js';
import type { TurnContext } from './turn-types.js';

const tools = new FakeToolSource([
  { name: 'bash' },
  { name: 'read_file', prepare: () => ({ needsApproval: false }) },
  { name: 'mcp__github__create_issue' },
  { name: 'write_file' },
]);

function calls(...names: string[]): ToolCall[] {
  return names.map((name, index) => ({ id: `call_${index}`, name, arguments: '{}' }));
}

function assistant(toolCalls: ToolCall[]): AssistantMessage {
  return { role: 'assistant', content: '', toolCalls };
}

async function decide(
  overrides: Partial<TurnContext>,
  policies: Record<string, 'allow' | 'deny' | 'ask'>,
  ...names: string[]
): Promise<PreparedCall[]> {
  const ctx = createFakeTurnContext({ toolSources: [tools], ...overrides });
  for (const [label, action] of Object.entries(policies)) ctx.host.policies.set(label, action);
  const batch = await prepareToolCalls(ctx, calls(...names));
  await decideWithoutAsking(ctx, batch);
  return batch;
}

function statusOf(batch: PreparedCall[], index = 0): string {
  const status = batch[index]?.status;
  return typeof status === 'string' ? status : `result: ${status?.output ?? ''}`;
}

describe('decideWithoutAsking precedence', () => {
  it('a deny policy blocks even with agent.auto_approve on', async () => {
    const batch = await decide({ autoApproveAll: true, autoApproveLabels: () => ['bash'] }, { bash: 'deny' }, 'bash');
    assert.equal(statusOf(batch), "result: Blocked by tool policy (pattern match for 'bash')");
    assert.equal(batch[0]?.item.error, "Blocked by tool policy (pattern match for 'bash')");
    assert.equal(batch[0]?.item.needsApproval, false);
  });

  it('an allow policy runs without asking', async () => {
    assert.equal(statusOf(await decide({}, { bash: 'allow' }, 'bash')), 'run');
  });

  it('agent.auto_approve runs what no policy decided, and an ask policy does not stop it', async () => {
    assert.equal(statusOf(await decide({ autoApproveAll: true }, {}, 'bash')), 'run');
    assert.equal(statusOf(await decide({ autoApproveAll: true }, { bash: 'ask' }, 'bash')), 'run');
  });

  it('auto_approve_tools entries match labels exactly or as globs', async () => {
    assert.equal(statusOf(await decide({ autoApproveLabels: () => ['bash'] }, {}, 'bash')), 'run');
    assert.equal(
      statusOf(await decide({ autoApproveLabels: () => ['mcp__github__*'] }, {}, 'mcp__github__create_issue')),
      'run',
    );
    assert.equal(statusOf(await decide({ autoApproveLabels: () => ['bas'] }, {}, 'bash')), 'ask');
    assert.equal(
      statusOf(await decide({ autoApproveLabels: () => ['mcp__gitlab__*'] }, {}, 'mcp__github__create_issue')),
      'ask',
    );
  });

  it('the workstream "always" set (part of the labels) approves, and everything else asks', async () => {
    const always = new Set(['write_file']);
    const batch = await decide({ autoApproveLabels: () => [...always] }, {}, 'write_file', 'bash');
    assert.deepEqual([statusOf(batch, 0), statusOf(batch, 1)], ['run', 'ask']);
  });

  it('consults policies only for calls that would ask', async () => {
    const batch = await decide({}, { read_file: 'deny' }, 'read_file');
    assert.equal(statusOf(batch), 'run');
  });
});

describe('approveToolCalls', () => {
  async function run(
    ctx: FakeTurnContext,
    ...names: string[]
  ): Promise<{ batch: PreparedCall[]; feedback: string | null }> {
    const toolCalls = calls(...names);
    const batch = await prepareToolCalls(ctx, toolCalls);
    const outcome = await approveToolCalls(ctx, batch, assistant(toolCalls));
    return { batch, feedback: outcome.feedback };
  }

  it('announces settled calls and asks only for the waiting ones, storing the whole batch', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    const { batch } = await run(ctx, 'read_file', 'bash');
    const announced = ctx.host.events.find((event) => event.type === 'tool-calls');
    assert.deepEqual(announced?.type === 'tool-calls' ? announced.items.map((item) => item.name) : [], ['read_file']);
    assert.equal(ctx.host.approvalRequests.length, 1);
    assert.deepEqual(
      ctx.host.approvalRequests[0]?.items.map((item) => item.name),
      ['bash'],
    );
    assert.deepEqual(
      ctx.host.approvalRequests[0]?.stored.calls.map((entry) => entry.name),
      ['read_file', 'bash'],
    );
    assert.deepEqual(ctx.host.states, ['attention', 'running']);
    assert.deepEqual(
      batch.map((entry) => entry.status),
      ['run', 'run'],
    );
  });

  it('does not ask when nothing waits', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools], autoApproveAll: true });
    await run(ctx, 'bash');
    assert.equal(ctx.host.approvalRequests.length, 0);
    assert.deepEqual(ctx.host.states, []);
  });

  it('a denial answers the waiting calls with "Denied by user: feedback" and keeps auto-approved ones', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    ctx.host.decide = () => ({ approved: false, always: false, feedback: 'not now', decidedBy: 'owner' });
    const { batch, feedback } = await run(ctx, 'read_file', 'bash');
    assert.equal(batch[0]?.status, 'run');
    assert.deepEqual(batch[1]?.status, { output: 'Denied by user: not now', isError: true });
    assert.equal(feedback, null);
  });

  it('a denial without feedback says "Denied by user"', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    ctx.host.decide = () => ({ approved: false, always: false, feedback: null, decidedBy: 'owner' });
    const { batch } = await run(ctx, 'bash');
    assert.deepEqual(batch[0]?.status, { output: 'Denied by user', isError: true });
  });

  it('"always" approves and records the labels once; approval feedback is handed on', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    ctx.host.decide = () => ({ approved: true, always: true, feedback: 'be brief', decidedBy: 'owner' });
    const { batch, feedback } = await run(ctx, 'bash', 'bash', 'write_file');
    assert.deepEqual(
      batch.map((entry) => entry.status),
      ['run', 'run', 'run'],
    );
    assert.deepEqual(ctx.host.alwaysLabels, ['bash', 'write_file']);
    assert.equal(feedback, 'be brief');
  });

  it('does not run calls whose approval was already carried out elsewhere', async () => {
    const ctx = createFakeTurnContext({ toolSources: [tools] });
    ctx.host.claimExecution = () => Promise.resolve(false);
    const batch = await prepareToolCalls(ctx, calls('bash'));
    await applyDecision(ctx, batch, {
      approvalId: 'a1',
      approved: true,
      always: true,
      feedback: null,
      decidedBy: 'owner',
    });
    assert.deepEqual(batch[0]?.status, { output: 'Not run: this approval was already carried out.', isError: true });
    assert.deepEqual(ctx.host.alwaysLabels, []);
  });
});
