/** Composition for `sandpiper chat`: config → stores → providers and tools → manager → the terminal channel. */
import type { Readable, Writable } from 'node:stream';
import type { AgentEvent } from './agent/events.js';
import { contentText } from './agent/messages.js';
import type { Workstream } from './agent/workstream-api.js';
import { runTerminalChat, type TerminalSession } from './channels/terminal/terminal-channel.js';
import type { Config } from './config/index.js';
import { createAgentRuntime, type AgentRuntime } from './main-agent.js';
import { createConfiguredMcpManager } from './main-mcp.js';
import { prepareContainment } from './main-containment.js';
import { loadToolDefinitions } from './agent/tools/index.js';
import { UsageError } from './shared/errors.js';
import { createLogger, type Logger } from './shared/logger.js';
import { openStorage } from './storage-open.js';
import type { Stores } from './storage/stores.js';

export interface RunChatOptions {
  config: Config;
  input: Readable;
  output: Writable;
  modelAlias?: string;
  /** Defaults to a warn-level logger on standard error. */
  logger?: Logger;
}

const LOCAL_USER = 'local';

async function localUserId(stores: Stores): Promise<string> {
  const existing = await stores.users.getUserByUsername(LOCAL_USER);
  return (existing ?? (await stores.users.createUser(LOCAL_USER))).userId;
}

function historyLines(messages: Awaited<ReturnType<Stores['conversations']['load']>>): string[] {
  if (messages.length === 0) return ['(empty)'];
  return messages.map((message) => {
    const text = contentText(message.content).replace(/\s+/g, ' ').slice(0, 200);
    if (message.role === 'tool') return `  [${message.name}] ${text}`;
    if (message.role === 'assistant' && message.toolCalls?.length) return `assistant: ${text} [calls ${message.toolCalls.map((c) => c.name).join(', ')}]`;
    return `${message.role}: ${text}`;
  });
}

function createSession(runtime: AgentRuntime, stores: Stores, ownerUserId: string, modelAlias: string | undefined): TerminalSession & { start(): Promise<void> } {
  let current: Workstream | undefined;
  let unsubscribe: (() => void) | undefined;
  let handler: (event: AgentEvent) => void = () => undefined;
  const open = async (): Promise<void> => {
    unsubscribe?.();
    current = await runtime.manager.create({ ownerUserId, name: 'terminal', ...(modelAlias === undefined ? {} : { modelAlias }) });
    unsubscribe = current.subscribe((event) => handler(event));
  };
  return {
    start: open,
    send: async (text) => {
      await current?.send(text);
    },
    onEvent: (next) => {
      handler = next;
    },
    resolveApproval: async (approvalId, decision) => {
      await runtime.manager.resolveApproval(approvalId, { ...decision, decidedBy: ownerUserId });
    },
    newConversation: open,
    history: async () => (current ? historyLines(await stores.conversations.load(current.wsId)) : []),
  };
}

/** Runs an interactive conversation on the given streams until `/quit` or end of input. */
export async function runChat(options: RunChatOptions): Promise<void> {
  const { config } = options;
  if (Object.keys(config.models).length === 0) throw new UsageError('no model configured: add a [models.<alias>] table to the config');
  if (options.modelAlias !== undefined && config.models[options.modelAlias] === undefined) {
    throw new UsageError(`unknown model alias "${options.modelAlias}"`);
  }
  const logger = options.logger ?? createLogger({ level: 'warn', format: 'json' });
  const storage = await openStorage(config, logger);
  try {
    // The same MCP servers as `start`, connected before the first question so their tools are there from the start.
    const toolDefinitions = (await loadToolDefinitions()).all;
    const containment = await prepareContainment(config, logger);
    const mcp = await createConfiguredMcpManager(config, storage.stores, logger, toolDefinitions, containment.sandbox);
    try {
      await mcp.start();
      const runtime = await createAgentRuntime(config, storage.stores, logger, {
        evictIntervalMs: 0,
        toolSources: [mcp],
        systemPromptSections: [() => mcp.systemPromptSection()],
        toolDefinitions,
        containment,
      });
      try {
        const session = createSession(runtime, storage.stores, await localUserId(storage.stores), options.modelAlias);
        await session.start();
        await runTerminalChat({ input: options.input, output: options.output, session });
      } finally {
        await runtime.close();
      }
    } finally {
      await mcp.shutdown();
    }
  } finally {
    await storage.close();
  }
}
