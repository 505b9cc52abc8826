/** Long-running and database commands: `start`, `migrate`, `chat`. */
import { openStorage } from '../storage-open.js';
import { loadConfigAndLogger, writeLine, type CliCommand } from './cli-context.js';

export const startCommand: CliCommand = {
  name: 'start',
  usage: 'sandpiper start [--config FILE] [--log-level LEVEL]',
  summary: 'run the gateway',
  async run(context) {
    const { config, logger } = loadConfigAndLogger(context);
    // Loaded on demand so admin commands do not pay for the platform SDKs.
    const { startGateway } = await import('../main.js');
    const gateway = await startGateway(config, logger);
    if (!context.shutdownSignal.aborted) {
      await new Promise<void>((resolve) => context.shutdownSignal.addEventListener('abort', () => resolve(), { once: true }));
    }
    logger.info('shutting down');
    await gateway.stop();
    logger.info('stopped');
    logger.flush();
    return 0;
  },
};

export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: 'sandpiper migrate [--config FILE]',
  summary: 'apply database migrations',
  async run(context) {
    const { config, logger } = loadConfigAndLogger(context);
    const storage = await openStorage(config, logger);
    await storage.close();
    writeLine(context.io.stdout, 'database is up to date');
    return 0;
  },
};

export const chatCommand: CliCommand = {
  name: 'chat',
  usage: 'sandpiper chat [--config FILE] [--model ALIAS]',
  summary: 'talk to the agent in the terminal (approvals as y/n/a(lways)/feedback)',
  options: { model: { type: 'string' } },
  async run(context) {
    const config = context.loadConfig();
    const model = context.flags['model'];
    const { runChat } = await import('../main-chat.js');
    await runChat({
      config,
      input: context.io.stdin,
      output: context.io.stdout,
      ...(typeof model === 'string' ? { modelAlias: model } : {}),
    });
    return 0;
  },
};
