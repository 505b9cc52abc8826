/** The `task` tool: hands a self-contained job to an autonomous sub-agent with the task-agent tool set, in the same directory. */
import { TASK_IDENTITY } from '../../subagents/agent-prompts.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

const promptOf = (args: Record<string, unknown>): string =>
  typeof args['prompt'] === 'string' ? args['prompt'].trim() : '';

function prepare(args: Record<string, unknown>, context: ToolContext): ToolPreparation {
  const prompt = promptOf(args);
  if (prompt === '')
    return {
      header: '✗ task: empty prompt',
      preview: '',
      needsApproval: false,
      approvalLabel: 'task',
      error: 'Error: empty prompt',
    };
  if (context.subAgents === undefined) {
    const error = 'Error: agents cannot spawn further agents';
    return { header: `✗ task: ${error.slice(7)}`, preview: '', needsApproval: false, approvalLabel: 'task', error };
  }
  return {
    header: '⚙ task (autonomous agent)',
    preview: prompt.slice(0, 300),
    needsApproval: true,
    approvalLabel: 'task',
    untimed: true,
  };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const port = context.subAgents;
  if (port === undefined) return { output: 'Error: agents cannot spawn further agents', isError: true };
  const result = await port.run(
    {
      label: 'task',
      toolSet: 'task',
      systemPrompt: (system) => `${system}\n\n${TASK_IDENTITY}`,
      transcript: [],
      prompt: promptOf(args),
    },
    context.signal,
  );
  if (result.reason === 'cancelled') {
    context.signal.throwIfAborted();
    return { output: '(task interrupted by user)', isError: true };
  }
  if (result.reason === 'error')
    return { output: `Task error: ${result.error ?? 'the sub-agent failed'}`, isError: true };
  return { output: result.text.trim() || '(no output)', isError: false };
}

export const taskHandler: ToolHandler = { name: 'task', prepare, execute };
