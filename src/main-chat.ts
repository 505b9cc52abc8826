/** Composition for `sandpiper chat`: config → stores → providers and tools → manager → the terminal channel. */
import type { Readable, Writable } from 'node:stream';
import type { AgentEvent } from './agent/events.js';
import { contentText } from './agent/messages.js';
import type { Workstream } from './agent/workstream-api.js';
import type { McpManager } from './agent/mcp/mcp-manager.js';
import { runTerminalChat, type TerminalForm, type TerminalSession } from './channels/terminal/terminal-channel.js';
import type { Config } from './config/index.js';
import { buildElicitationForm, parseElicitationValues } from './gateway/elicitation-form.js';
import { assembleAgent, type AgentRuntime } from './main-agent.js';
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

/** Most fields asked at the prompt for one elicitation. */
const TERMINAL_FORM_FIELDS = 20;

/** MCP elicitations become prompts in the terminal (the same schema → fields → values rules as the channel forms). */
function wireElicitation(mcp: McpManager, session: TerminalSession & { form(form: TerminalForm): void }): () => void {
  return mcp.onElicitation(
    (request, signal) =>
      new Promise((resolve) => {
        const built = buildElicitationForm(request.requestedSchema, TERMINAL_FORM_FIELDS);
        if (!built.ok) return resolve({ action: 'decline' });
        let settled = false;
        const settle = (answer: Parameters<typeof resolve>[0]): void => {
          if (settled) return;
          settled = true;
          resolve(answer);
        };
        signal.addEventListener('abort', () => settle({ action: 'cancel' }), { once: true });
        session.form({
          source: request.server,
          message: request.message,
          fields: built.value.map((entry) => entry.field),
          answer: (values) => {
            if (values === undefined) {
              settle({ action: 'decline' });
              return Promise.resolve([]);
            }
            const parsed = parseElicitationValues(built.value, values);
            if (!parsed.ok) return Promise.resolve(parsed.error);
            settle({ action: 'accept', content: parsed.value });
            return Promise.resolve([]);
          },
        });
      }),
  );
}

/**
 * MCP OAuth in the terminal: the sign-in link is printed (the terminal is private to its user). The callback is served
 * by a gateway (`sandpiper start`) on the same database; the waiting call reads the outcome from the database, and
 * Ctrl-C (stopping the turn) or the time-out ends the wait.
 */
function wireAuthorization(mcp: McpManager, output: Writable): () => void {
  return mcp.onAuthorization((request) => {
    const minutes = Math.max(1, Math.round((Date.parse(request.expiresAt) - Date.now()) / 60_000));
    output.write(`🔐 ${request.server} needs your authorization. Open this link to sign in (it works once, for ${minutes} min):\n${request.url}\n`);
    return Promise.resolve();
  });
}

function createSession(runtime: AgentRuntime, stores: Stores, ownerUserId: string, modelAlias: string | undefined): TerminalSession & { start(): Promise<void>; form(form: TerminalForm): void } {
  let current: Workstream | undefined;
  let unsubscribe: (() => void) | undefined;
  let handler: (event: AgentEvent) => void = () => undefined;
  let formHandler: (form: TerminalForm) => void = () => undefined;
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
    onForm: (next) => {
      formHandler = next;
    },
    form: (form) => formHandler(form),
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
    // The same assembly as `start`; MCP servers connect before the first question so their tools are there.
    const controller = new AbortController();
    const agent = await assembleAgent(config, storage.stores, logger, { connectMcp: 'await', signal: controller.signal, evictIntervalMs: 0 });
    try {
      const session = createSession(agent.runtime, storage.stores, await localUserId(storage.stores), options.modelAlias);
      const unwire = wireElicitation(agent.mcp, session);
      const unwireLinks = wireAuthorization(agent.mcp, options.output);
      try {
        await session.start();
        await runTerminalChat({ input: options.input, output: options.output, session });
      } finally {
        unwireLinks();
        unwire();
      }
    } finally {
      controller.abort();
      await agent.close();
    }
  } finally {
    await storage.close();
  }
}
