/** The command table and help text. */
import { linkCommand, tokenCreateCommand, unlinkCommand, userAddCommand } from './admin-commands.js';
import type { CliCommand } from './cli-context.js';
import { approvalsListCommand } from './approvals-command.js';
import { approvalsHistoryCommand, grantsAddCommand, grantsListCommand, grantsRevokeCommand } from './grant-commands.js';
import { userDisableCommand, userEnableCommand, userRemoveCommand } from './user-lifecycle-commands.js';
import { auditCommand } from './audit-command.js';
import { usageCommand } from './usage-command.js';
import { adminTokenCommand } from './admin-token-command.js';
import { doctorCommand } from './doctor-command.js';
import { mcpReconnectCommand, mcpRefreshCommand, mcpReloadCommand, mcpStatusCommand } from './mcp-command.js';
import { mcpAddCommand, mcpListCommand, mcpRemoveCommand } from './mcp-server-commands.js';
import { mcpAuthListCommand, mcpAuthLoginCommand, mcpAuthRekeyCommand, mcpAuthRevokeCommand } from './mcp-auth-commands.js';
import { slackInstallsListCommand, slackInstallsRekeyCommand, slackInstallsRemoveCommand } from './slack-install-commands.js';
import { mcpInstallCommand, mcpSearchCommand } from './mcp-registry-commands.js';
import { templateCreateCommand, templateDeleteCommand, templateEditCommand, templateListCommand, templateShowCommand } from './template-commands.js';
import { policyAddCommand, policyListCommand, policyNetworkCommand, policyRemoveCommand } from './policy-commands.js';
import { tokenListCommand, tokenRevokeCommand, userListCommand } from './user-token-commands.js';
import { notifyCommand } from './notify-command.js';
import { statusCommand } from './status-command.js';
import { chatCommand, migrateCommand, startCommand } from './server-commands.js';

export const commands: readonly CliCommand[] = [
  startCommand,
  chatCommand,
  migrateCommand,
  doctorCommand,
  statusCommand,
  userAddCommand,
  userListCommand,
  userDisableCommand,
  userEnableCommand,
  userRemoveCommand,
  tokenCreateCommand,
  tokenListCommand,
  tokenRevokeCommand,
  linkCommand,
  unlinkCommand,
  policyListCommand,
  policyNetworkCommand,
  policyAddCommand,
  policyRemoveCommand,
  approvalsListCommand,
  approvalsHistoryCommand,
  grantsListCommand,
  grantsAddCommand,
  grantsRevokeCommand,
  auditCommand,
  usageCommand,
  adminTokenCommand,
  notifyCommand,
  mcpListCommand,
  mcpAddCommand,
  mcpRemoveCommand,
  mcpReloadCommand,
  mcpAuthListCommand,
  mcpAuthRevokeCommand,
  mcpAuthRekeyCommand,
  mcpAuthLoginCommand,
  slackInstallsListCommand,
  slackInstallsRemoveCommand,
  slackInstallsRekeyCommand,
  mcpStatusCommand,
  mcpRefreshCommand,
  mcpReconnectCommand,
  mcpSearchCommand,
  mcpInstallCommand,
  templateListCommand,
  templateShowCommand,
  templateCreateCommand,
  templateEditCommand,
  templateDeleteCommand,
];

const COMMON_OPTIONS_LINE = [
  'every command accepts --config FILE, --log-level LEVEL and --help;',
  'database commands accept --verbose (say which database) and --create-db (allow creating a new SQLite file)',
].join('\n');

/** Finds the command named by the leading words of argv (`token create`, `start`). */
export function findCommand(argv: readonly string[]): { command: CliCommand; rest: string[] } | undefined {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word)) return { command, rest: argv.slice(words.length) };
  }
  return undefined;
}

/** Commands whose first word is `group` (`user` → `user add`), for `sandpiper user --help` and `sandpiper user`. */
export function commandsInGroup(group: string | undefined): CliCommand[] {
  if (group === undefined || group.startsWith('-')) return [];
  return commands.filter((command) => command.name.includes(' ') && command.name.split(' ')[0] === group);
}

function usageLines(list: readonly CliCommand[]): string[] {
  const width = Math.max(...list.map((command) => command.usage.length));
  return list.map((command) => `  ${command.usage.padEnd(width)}  ${command.summary}`);
}

export function helpText(): string {
  return ['usage: sandpiper <command> [options]', '', 'commands:', ...usageLines(commands), '', COMMON_OPTIONS_LINE].join('\n');
}

/** Help of one command, or of a group of subcommands. */
export function commandHelpText(list: readonly CliCommand[]): string {
  if (list.length === 1 && list[0] !== undefined) return [`usage: ${list[0].usage}`, list[0].summary, '', COMMON_OPTIONS_LINE].join('\n');
  return ['commands:', ...usageLines(list), '', COMMON_OPTIONS_LINE].join('\n');
}
