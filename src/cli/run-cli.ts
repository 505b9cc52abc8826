/** Runs one CLI invocation: parses argv, dispatches to a command, maps errors to exit codes (0 ok, 1 runtime, 2 usage/config). */
import { parseArgs } from 'node:util';
import { loadConfig, type Environment } from '../config/index.js';
import { ConfigError, GatewayError, UsageError, describeError } from '../shared/errors.js';
import { commandHelpText, commandsInGroup, findCommand, helpText } from './commands.js';
import { writeLine, type CliCommand, type CliContext, type CliIo } from './cli-context.js';

const COMMON_OPTIONS = {
  config: { type: 'string' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  verbose: { type: 'boolean' },
  'create-db': { type: 'boolean' },
} as const;

const HELP_WORDS = new Set(['--help', '-h', 'help']);

/**
 * Where a command reads its configuration from: the folder a `config.toml` is looked for in and relative paths start
 * from, and the variables (`SANDPIPER_*`, `XDG_STATE_HOME`). The bin gives neither (the process's own); tests that run
 * commands in-process give their own instead of changing the process's.
 */
export interface ConfigInputs {
  cwd?: string;
  env?: Environment;
}

export async function runCli(
  argv: readonly string[],
  io: CliIo,
  shutdownSignal: AbortSignal,
  inputs: ConfigInputs = {},
): Promise<number> {
  let debug = argv.includes('--log-level=debug') || argv.join(' ').includes('--log-level debug');
  try {
    const found = findCommand(argv);
    if (!found) return unknownCommand(argv, io);
    const { command, rest } = found;
    const parsed = parseArgs({
      args: [...rest],
      options: { ...COMMON_OPTIONS, ...(command.options ?? {}) },
      allowPositionals: true,
      strict: true,
    });
    if (parsed.values.help) {
      writeLine(io.stdout, commandHelpText([command]));
      return 0;
    }
    const flags = parsed.values as Record<string, string | boolean | undefined>;
    debug = flags['log-level'] === 'debug';
    return await command.run(commandContext(parsed.positionals, flags, io, shutdownSignal, inputs));
  } catch (error) {
    return reportError(error, io, debug);
  }
}

function commandContext(
  positionals: string[],
  flags: CliContext['flags'],
  io: CliIo,
  shutdownSignal: AbortSignal,
  inputs: ConfigInputs,
): CliContext {
  return {
    positionals,
    flags,
    io,
    shutdownSignal,
    loadConfig: () =>
      loadConfig({
        ...inputs,
        file: typeof flags['config'] === 'string' ? flags['config'] : undefined,
        flags: { 'log.level': flags['log-level'] },
      }),
  };
}

/** No command matched: global help (exit 0), a group's help or usage, or a one-line error (exit 2). */
function unknownCommand(argv: readonly string[], io: CliIo): number {
  const [first, second] = argv;
  if (first === undefined || HELP_WORDS.has(first)) {
    writeLine(io.stdout, helpText());
    return 0;
  }
  const group: readonly CliCommand[] = commandsInGroup(first);
  if (group.length > 0 && second !== undefined && HELP_WORDS.has(second)) {
    writeLine(io.stdout, commandHelpText(group));
    return 0;
  }
  if (group.length > 0) {
    const usages = group.map((command) => command.usage).join(' | ');
    writeLine(
      io.stderr,
      `sandpiper: ${second === undefined ? 'missing' : 'unknown'} subcommand of "${first}"; usage: ${usages}`,
    );
    return 2;
  }
  writeLine(io.stderr, `sandpiper: unknown command "${first}" (see sandpiper --help)`);
  return 2;
}

function isParseArgsError(error: unknown): boolean {
  return (
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { code: string }).code.startsWith('ERR_PARSE_ARGS')
  );
}

/** A listen failure (port taken, no permission) as one line naming the address and the keys to change. */
function listenFailure(error: unknown): string | undefined {
  const { code, syscall, address, port } = error as {
    code?: unknown;
    syscall?: unknown;
    address?: unknown;
    port?: unknown;
  };
  if (syscall !== 'listen' || typeof code !== 'string') return undefined;
  const where =
    typeof address === 'string' && typeof port === 'number' ? `${address}:${port}` : 'the configured address';
  const why = code === 'EADDRINUSE' ? 'address already in use' : code === 'EACCES' ? 'permission denied' : code;
  return `cannot listen on ${where}: ${why} (set gateway.http_port / SANDPIPER_HTTP_PORT or gateway.http_host)`;
}

/** The message of a usage mistake (exit 2): bad flags or arguments, or input the admin operations rejected. */
function usageMessage(error: unknown): string | undefined {
  // Admin operations reject bad input with BAD_REQUEST (the same checks as the admin HTTP endpoints' 400s).
  if (error instanceof UsageError || (error instanceof GatewayError && error.code === 'BAD_REQUEST'))
    return error.message;
  // node:util parseArgs adds a second sentence about `--`; the first one names the problem.
  if (isParseArgsError(error)) return describeError(error).split('. ')[0] ?? '';
  return undefined;
}

function reportError(error: unknown, io: CliIo, debug: boolean): number {
  if (error instanceof ConfigError) {
    const lines = error.issues.slice(0, 3);
    writeLine(
      io.stderr,
      `sandpiper: configuration error: ${lines.join('\n  ')}${error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : ''}`,
    );
    return 2;
  }
  if (error instanceof GatewayError && error.code === 'ALREADY_RUNNING') {
    // A second `start` on a SQLite database (ADR 0023): like a configuration error, exit 2 and one line.
    writeLine(io.stderr, `sandpiper: ${error.message}`);
    return 2;
  }
  if (error instanceof GatewayError && error.code === 'CONFIG_INVALID') {
    writeLine(io.stderr, `sandpiper: configuration error: ${error.message}`);
    return 2;
  }
  const usage = usageMessage(error);
  if (usage !== undefined) {
    writeLine(io.stderr, `sandpiper: ${usage} (see --help)`);
    return 2;
  }
  const listen = listenFailure(error);
  writeLine(
    io.stderr,
    `sandpiper: ${listen ?? (error instanceof GatewayError ? error.message : `failed: ${describeError(error)}`)}`,
  );
  if (debug && error instanceof Error && error.stack) writeLine(io.stderr, error.stack);
  return 1;
}
