/** What every CLI command receives: parsed flags, positional arguments, streams, and config loading. */
import { userInfo } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { Config } from '../config/index.js';
import { UsageError } from '../shared/errors.js';
import { createLogger, type Logger } from '../shared/logger.js';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
}

export interface CliContext {
  positionals: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
  io: CliIo;
  /** Loads the configuration from --config / env / flags (throws ConfigError). */
  loadConfig(): Config;
  /** Resolves when SIGINT/SIGTERM arrives (long-running commands). */
  shutdownSignal: AbortSignal;
}

export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  /** Extra flags this command accepts (beyond --config, --log-level, --help). */
  options?: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>;
  /** Returns the process exit code. */
  run(context: CliContext): Promise<number>;
}

/** Loads the configuration and a logger that follows its `log` settings (commands that run or migrate the gateway). */
export function loadConfigAndLogger(context: CliContext): { config: Config; logger: Logger } {
  const config = context.loadConfig();
  return { config, logger: createLogger({ level: config.log.level, format: config.log.format }) };
}

/** A flag that takes a value: its text, undefined when absent; a usage error when given without one. */
export function stringFlag(context: CliContext, flag: string): string | undefined {
  const value = context.flags[flag];
  if (value === true) throw new UsageError(`--${flag} takes a value`);
  return typeof value === 'string' ? value : undefined;
}

export function writeLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${text}\n`);
}

/** Who the CLI acts as in the admin audit: `cli:<OS user>`. */
export function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return 'cli:unknown';
  }
}
