/**
 * Composition for `sandpiper chat`: config → stores → agent → the gateway with one channel, the terminal
 * (`src/channels/terminal/`). The terminal's messages go through the gateway's code as Discord's and Slack's do:
 * inbound limits, commands, the queue, approvals, plan review and forms. The watches of terminal conversations run here
 * while the chat runs; every other conversation's watches are left to `sandpiper start`.
 */
import type { Readable, Writable } from 'node:stream';
import { TERMINAL_CHANNEL, TERMINAL_PLATFORM, TerminalAdapter } from './channels/terminal/terminal-adapter.js';
import type { Config } from './config/index.js';
import { createGateway } from './gateway/index.js';
import { assembleAgent, type AgentRuntime } from './main-agent.js';
import { createGatewayWatchRunner } from './main-watch.js';
import { UsageError } from './shared/errors.js';
import { createSilentLogger, type Logger } from './shared/logger.js';
import { openStorage } from './storage-open.js';
import type { Stores } from './storage/stores.js';
import type { WatchStore } from './storage/watch-store.js';

export interface RunChatOptions {
  config: Config;
  input: Readable;
  output: Writable;
  /** Starts a new conversation on this model (or switches the current one to it). */
  modelAlias?: string;
  /** Where log lines go; none by default, so they never mix into the conversation (`sandpiper chat --log-file`). */
  logger?: Logger;
  /** Ends the chat as `/quit` does (SIGTERM, SIGINT). */
  signal?: AbortSignal;
}

const LOCAL_USER = 'local';
const LOCAL_PLATFORM_USER = 'local';

/** The local user, linked to the terminal's person (so the gateway treats them as a linked owner). */
async function localUser(stores: Stores): Promise<string> {
  const existing = await stores.users.getUserByUsername(LOCAL_USER);
  const userId = (existing ?? (await stores.users.createUser(LOCAL_USER))).userId;
  const link = await stores.users.getLink(TERMINAL_PLATFORM, LOCAL_PLATFORM_USER);
  if (link?.userId !== userId) {
    if (link) await stores.users.unlink(TERMINAL_PLATFORM, LOCAL_PLATFORM_USER);
    await stores.users.link(TERMINAL_PLATFORM, LOCAL_PLATFORM_USER, userId);
  }
  return userId;
}

/** `--model`: the open terminal conversation switches to it, or a new one starts on it. */
async function useModel(runtime: AgentRuntime, stores: Stores, ownerUserId: string, modelAlias: string): Promise<void> {
  const route = await stores.routes.getRoute(TERMINAL_PLATFORM, TERMINAL_CHANNEL);
  const open = route ? await runtime.manager.get(route.wsId) : undefined;
  if (open) {
    await open.setModel(modelAlias);
    return;
  }
  if (route) await stores.routes.deleteRoute(TERMINAL_PLATFORM, TERMINAL_CHANNEL);
  await runtime.manager.create({ ownerUserId, name: 'terminal', modelAlias, route: { channelType: TERMINAL_PLATFORM, channelId: TERMINAL_CHANNEL } });
}

/** The watch store as the chat's runner sees it: only watches of conversations held in the terminal. */
function terminalWatches(stores: Stores): WatchStore {
  const inTerminal = async (wsId: string): Promise<boolean> => (await stores.routes.getRouteByWorkstream(wsId))?.channelType === TERMINAL_PLATFORM;
  return new Proxy(stores.watches, {
    get(target, property) {
      if (property === 'listDue') {
        return async (nowIso: string) => {
          const due = await target.listDue(nowIso);
          const kept = await Promise.all(due.map((row) => inTerminal(row.wsId)));
          return due.filter((_row, index) => kept[index]);
        };
      }
      const value: unknown = Reflect.get(target, property);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function checkModels(config: Config, modelAlias: string | undefined): void {
  if (Object.keys(config.models).length === 0) throw new UsageError('no model configured: add a [models.<alias>] table to the config');
  if (modelAlias !== undefined && config.models[modelAlias] === undefined) throw new UsageError(`unknown model alias "${modelAlias}"`);
}

/** Runs an interactive conversation on the given streams until `/quit`, end of input or `signal`. */
export async function runChat(options: RunChatOptions): Promise<void> {
  const { config } = options;
  checkModels(config, options.modelAlias);
  const logger = options.logger ?? createSilentLogger();
  const storage = await openStorage(config, logger);
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    // The same assembly as `start`; MCP servers connect before the first question so their tools are there.
    const agent = await assembleAgent(config, storage.stores, logger, { connectMcp: 'await', signal: controller.signal, evictIntervalMs: 0 });
    try {
      const { stores } = storage;
      const ownerUserId = await localUser(stores);
      if (options.modelAlias !== undefined) await useModel(agent.runtime, stores, ownerUserId, options.modelAlias);
      const adapter = new TerminalAdapter({ input: options.input, output: options.output, logger });
      const gateway = createGateway({ config, adapters: [adapter], manager: agent.runtime.manager, stores, logger, elicitations: agent.mcp, authorizations: agent.mcp });
      const watches = createGatewayWatchRunner(config, { ...stores, watches: terminalWatches(stores) }, gateway, logger, agent.containment.sandbox);
      await gateway.start(controller.signal);
      watches.start();
      if (!controller.signal.aborted) await Promise.race([adapter.ended, new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true }))]);
      await watches.stop();
      await gateway.stop();
    } finally {
      controller.abort();
      await agent.close();
    }
  } finally {
    options.signal?.removeEventListener('abort', abort);
    await storage.close();
  }
}
