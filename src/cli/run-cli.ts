/** Runs one CLI invocation: parses argv, dispatches to a command, maps errors to exit codes (0 ok, 1 runtime, 2 usage/config). */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index.js';
import { ConfigError, GatewayError, UsageError, describeError } from '../shared/errors.js';
import { findCommand, helpText } from './commands.js';
import { writeLine, type CliContext, type CliIo } from './cli-context.js';

const COMMON_OPTIONS = {
  config: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function runCli(argv: readonly string[], io: CliIo, shutdownSignal: AbortSignal): Promise<number> {
  let debug = argv.includes('--log-level=debug') || argv.join(' ').includes('--log-level debug');
  try {
    const found = findCommand(argv);
    if (!found) {
      const wantsHelp = argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help';
      writeLine(wantsHelp ? io.stdout : io.stderr, helpText());
      return wantsHelp ? 0 : 2;
    }
    const { command, rest } = found;
    const parsed = parseArgs({
      args: [...rest],
      options: { ...COMMON_OPTIONS, ...(command.options ?? {}) },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      writeLine(io.stdout, `usage: ${command.usage}\n${command.summary}`);
      return 0;
    }
    const flags = parsed.values as Record<string, string | boolean | undefined>;
    debug = flags['log-level'] === 'debug';
    const context: CliContext = {
      positionals: parsed.positionals,
      flags,
      io,
      shutdownSignal,
      loadConfig: () =>
        loadConfig({
          file: typeof flags['config'] === 'string' ? flags['config'] : undefined,
          flags: { 'log.level': flags['log-level'] },
        }),
    };
    return await command.run(context);
  } catch (error) {
    return reportError(error, io, debug);
  }
}

function reportError(error: unknown, io: CliIo, debug: boolean): number {
  if (error instanceof ConfigError) {
    const lines = error.issues.slice(0, 3);
    writeLine(io.stderr, `sandpiper: configuration error: ${lines.join('\n  ')}${error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : ''}`);
    return 2;
  }
  if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    writeLine(io.stderr, `sandpiper: ${describeError(error)} (see --help)`);
    return 2;
  }
  writeLine(io.stderr, `sandpiper: ${error instanceof GatewayError ? error.message : `failed: ${describeError(error)}`}`);
  if (debug && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
  return 1;
}

