/**
 * `slack installs list | remove | rekey`: the workspaces that installed the app (slack.client_id, HTTP mode), in the
 * database. Tokens are encrypted there and never printed. Removing an install forgets it here (a running gateway
 * stops answering that workspace within 30 s); uninstalling the app in the workspace also revokes the token at Slack.
 */
import { rekeySlackInstalls, slackTokenCipher } from '../main-slack.js';
import { UsageError } from '../shared/errors.js';
import { found, listCommand, recordCommand, rekeyCommand } from './command-table.js';

export const slackInstallsListCommand = listCommand({
  name: 'slack installs list',
  usage: 'sandpiper slack installs list [--json]',
  summary: 'list the Slack workspaces that installed the app (no tokens are shown)',
  key: 'installs',
  read: () => async (stores) =>
    (await stores.slackInstalls.list()).map((row) => ({
      team_id: row.teamId,
      team_name: row.teamName,
      enterprise_id: row.enterpriseId,
      bot_user_id: row.botUserId,
      scopes: row.botScopes,
      installed_by: row.installerUserId,
      installed_at: row.installedAt,
      updated_at: row.updatedAt,
    })),
  table: {
    headers: ['team', 'name', 'bot user', 'installed by', 'installed'],
    row: (entry) => [entry.team_id, entry.team_name, entry.bot_user_id, entry.installed_by ?? '', entry.installed_at],
    empty: 'no Slack workspace has installed the app',
  },
});

const REMOVE_USAGE = 'sandpiper slack installs remove TEAM_ID';

export const slackInstallsRemoveCommand = recordCommand({
  name: 'slack installs remove',
  usage: REMOVE_USAGE,
  summary: "forget a workspace's install (its events are ignored until it installs again)",
  options: {},
  arguments: 1,
  change([team = '']) {
    if (!/^[TE][A-Z0-9]{2,20}$/.test(team))
      throw new UsageError(`TEAM_ID is a Slack workspace id (T…); usage: ${REMOVE_USAGE}`);
    return {
      audit: { action: 'slack.installs.remove', target: team },
      apply: async (stores) =>
        found((await stores.slackInstalls.remove(team)) && team, `no Slack install for workspace ${team.slice(0, 32)}`),
    };
  },
  confirm: {
    key: 'install',
    line: (team) =>
      `removed the install of ${team}; uninstall the app in that workspace to revoke its token at Slack too`,
  },
});

export const slackInstallsRekeyCommand = rekeyCommand({
  name: 'slack installs rekey',
  usage: 'sandpiper slack installs rekey',
  summary: 'after a slack.token_key rotation: re-encrypt the stored bot tokens with the new key',
  options: {},
  action: 'slack.installs.rekey',
  noun: 'token',
  previousKey: 'slack.token_key_previous',
  rekey(context) {
    const cipher = slackTokenCipher(context.loadConfig().slack);
    return (stores) => rekeySlackInstalls(stores.slackInstalls, cipher);
  },
});
