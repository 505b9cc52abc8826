/** Long-running and database commands: `start`, `migrate`, `chat`. */
import { createWriteStream } from 'node:fs';
import { createLogger } from '../shared/logger.js';
import { loadConfigAndLogger, writeLine, type CliCommand } from './cli-context.js';
import { reportDatabase } from './open-database.js';

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
      await new Promise<void>((resolve) =>
        context.shutdownSignal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    const timeoutS = config.gateway.shutdown_timeout_s;
    logger.info({ reason: String(context.shutdownSignal.reason), timeout_s: timeoutS }, 'shutting down');
    const finished = await stopWithin(gateway.stop(), timeoutS * 1000);
    if (finished) logger.info('stopped');
    else
      logger.error(
        { timeout_s: timeoutS },
        `shutdown did not finish within ${timeoutS} s (gateway.shutdown_timeout_s); exiting anyway`,
      );
    logger.flush();
    return finished ? 0 : 1;
  },
};

/** True when `stopping` settles within `ms`; a failed step is logged by the gateway's own shutdown. */
async function stopWithin(stopping: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    // Purpose: timeout (how long a stop may take).
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      stopping.then(
        () => true as const,
        () => true as const,
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const migrateCommand: CliCommand = {
  name: 'migrate',
  usage: 'sandpiper migrate [--config FILE]',
  summary: 'apply database migrations',
  async run(context) {
    const { config, logger } = loadConfigAndLogger(context);
    reportDatabase(context, config);
    const { openStorage } = await import('../storage-open.js');
    const storage = await openStorage(config, logger);
    await storage.close();
    writeLine(context.io.stdout, 'database is up to date');
    return 0;
  },
};

export const chatCommand: CliCommand = {
  name: 'chat',
  usage: 'sandpiper chat [--config FILE] [--model ALIAS] [--log-file FILE]',
  summary: 'talk to the agent in the terminal (through the gateway: /help lists the commands)',
  options: { model: { type: 'string' }, 'log-file': { type: 'string' } },
  async run(context) {
    const config = context.loadConfig();
    const model = context.flags['model'];
    const logFile = context.flags['log-file'];
    const { runChat } = await import('../main-chat.js');
    // Log lines never go to the terminal the conversation is in: to --log-file when given, else nowhere.
    const log = typeof logFile === 'string' ? createWriteStream(logFile, { flags: 'a' }) : undefined;
    try {
      await runChat({
        config,
        input: context.io.stdin,
        output: context.io.stdout,
        signal: context.shutdownSignal,
        ...(log ? { logger: createLogger({ level: config.log.level, format: 'json', destination: log }) } : {}),
        ...(typeof model === 'string' ? { modelAlias: model } : {}),
      });
    } finally {
      await new Promise<void>((resolve) => (log ? log.end(resolve) : resolve()));
    }
    return 0;
  },
};
