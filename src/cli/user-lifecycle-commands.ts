/** `user disable|enable|remove USERNAME`: a user's access and data (ADR 0046). */
import { removeUser, setUserDisabled } from '../gateway/admin/admin-user-lifecycle.js';
import { UsageError } from '../shared/errors.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { JSON_OPTION, printJson, wantsJson } from './cli-output.js';
import { requirePositionals, withAuditedStores } from './command-table.js';

function toggle(name: 'disable' | 'enable'): CliCommand {
  return {
    name: `user ${name}`,
    usage: `sandpiper user ${name} USERNAME [--json]`,
    summary:
      name === 'disable'
        ? 'refuse a user everywhere (messages, clicks, commands, linking) and keep their data'
        : 'let a disabled user in again',
    options: JSON_OPTION,
    async run(context) {
      const [username] = requirePositionals(context, 1, this.usage) as [string];
      const user = await withAuditedStores(context, { action: `user.${name}`, target: username }, (stores) =>
        setUserDisabled(stores, username, name === 'disable'),
      );
      if (wantsJson(context)) printJson(context, { user });
      else writeLine(context.io.stdout, `${name}d user ${user.username}`);
      return 0;
    },
  };
}

export const userDisableCommand = toggle('disable');
export const userEnableCommand = toggle('enable');

export const userRemoveCommand: CliCommand = {
  name: 'user remove',
  usage: 'sandpiper user remove USERNAME --yes [--json]',
  summary: 'delete a user with their conversations, workspaces, memories, tokens, links and grants (cannot be undone)',
  options: { ...JSON_OPTION, yes: { type: 'boolean' } },
  async run(context) {
    const [username] = requirePositionals(context, 1, this.usage) as [string];
    if (context.flags['yes'] !== true)
      throw new UsageError(`this deletes everything of ${username} for good; add --yes to confirm`);
    const workspaceDir = context.loadConfig().agent.workspace_dir;
    const removed = await withAuditedStores(context, { action: 'user.remove', target: username }, (stores) =>
      removeUser(stores, username, workspaceDir),
    );
    if (wantsJson(context)) printJson(context, { user: removed });
    else
      writeLine(
        context.io.stdout,
        `removed user ${removed.username} with ${removed.conversations} conversations and ${removed.folders} workspace folders`,
      );
    return 0;
  },
};
