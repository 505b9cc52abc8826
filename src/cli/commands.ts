/** The command table and help text. */
import { linkCommand, tokenCreateCommand, unlinkCommand, userAddCommand } from './admin-commands.js';
import type { CliCommand } from './cli-context.js';
import { mcpCommand } from './mcp-command.js';
import { notifyCommand } from './notify-command.js';
import { chatCommand, migrateCommand, startCommand } from './server-commands.js';

export const commands: readonly CliCommand[] = [
  startCommand,
  chatCommand,
  migrateCommand,
  userAddCommand,
  tokenCreateCommand,
  linkCommand,
  unlinkCommand,
  notifyCommand,
  mcpCommand,
];

/** Finds the command named by the leading words of argv (`token create`, `start`). */
export function findCommand(argv: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

export function helpText(): string {
  const width = Math.max(...commands.map((command) => command.usage.length));
  const lines = commands.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`);
  return ['usage: sandpiper <command> [options]', '', 'commands:', ...lines, '', 'every command accepts --config FILE, --log-level LEVEL and --help'].join('\n');
}
