/**
 * `slack installs list | remove | rekey`: the workspaces that installed the app (slack.client_id, HTTP mode), in the
 * database. Tokens are encrypted there and never printed. Removing an install forgets it here (a running gateway
 * stops answering that workspace within 30 s); uninstalling the app in the workspace also revokes the token at Slack.
 */
import { rekeySlackInstalls, slackTokenCipher } from '../main-slack.js';
import { GatewayError, UsageError } from '../shared/errors.js';
import { requirePositionals, withAuditedStores, withStores } from './admin-commands.js';
import { writeLine, type CliCommand } from './cli-context.js';
import { JSON_OPTION, printList } from './cli-output.js';

export const slackInstallsListCommand: CliCommand = {
  name: 'slack installs list',
  usage: 'sandpiper slack installs list [--json]',
  summary: 'list the Slack workspaces that installed the app (no tokens are shown)',
  options: JSON_OPTION,
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const rows = await withStores(context, (stores) => stores.slackInstalls.list());
    const entries = rows.map((row) => ({
      team_id: row.teamId,
      team_name: row.teamName,
      enterprise_id: row.enterpriseId,
      bot_user_id: row.botUserId,
      scopes: row.botScopes,
      installed_by: row.installerUserId,
      installed_at: row.installedAt,
      updated_at: row.updatedAt,
    }));
    printList(context, 'installs', entries, {
      headers: ['team', 'name', 'bot user', 'installed by', 'installed'],
      row: (entry) => [entry.team_id, entry.team_name, entry.bot_user_id, entry.installed_by ?? '', entry.installed_at],
      empty: 'no Slack workspace has installed the app',
    });
    return 0;
  },
};

export const slackInstallsRemoveCommand: CliCommand = {
  name: 'slack installs remove',
  usage: 'sandpiper slack installs remove TEAM_ID',
  summary: "forget a workspace's install (its events are ignored until it installs again)",
  async run(context) {
    const [teamId = ''] = requirePositionals(context, 1, this.usage);
    const team = teamId.trim();
    if (!/^[TE][A-Z0-9]{2,20}$/.test(team))
      throw new UsageError(`TEAM_ID is a Slack workspace id (T…); usage: ${this.usage}`);
    const removed = await withAuditedStores(
      context,
      { action: 'slack.installs.remove', target: team },
      async (stores) => {
        if (!(await stores.slackInstalls.remove(team)))
          throw new GatewayError('NOT_FOUND', `no Slack install for workspace ${team.slice(0, 32)}`);
        return true;
      },
    );
    if (removed)
      writeLine(
        context.io.stdout,
        `removed the install of ${team}; uninstall the app in that workspace to revoke its token at Slack too`,
      );
    return 0;
  },
};

export const slackInstallsRekeyCommand: CliCommand = {
  name: 'slack installs rekey',
  usage: 'sandpiper slack installs rekey',
  summary: 'after a slack.token_key rotation: re-encrypt the stored bot tokens with the new key',
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const cipher = slackTokenCipher(context.loadConfig().slack);
    const count = await withAuditedStores(context, { action: 'slack.installs.rekey' }, (stores) =>
      rekeySlackInstalls(stores.slackInstalls, cipher),
    );
    writeLine(
      context.io.stdout,
      `re-encrypted ${count} token${count === 1 ? '' : 's'}; slack.token_key_previous can now be emptied`,
    );
    return 0;
  },
};
