/** SlackInstallStore on knex (SQLite or PostgreSQL: every instance reads the same installs). */
import type { Knex } from 'knex';
import { isoNow } from '../shared/time.js';
import { isStringArray, nullableText, parseJsonOr, text, type DbRow } from './rows.js';
import type { SlackInstallInput, SlackInstallRow, SlackInstallStore } from './slack-install-store.js';
import { guard } from './storage-errors.js';

const INSTALLS = 'slack_installs';
const KEYS = 'slack_team_keys';
const STATES = 'slack_oauth_states';

function toRow(row: DbRow): SlackInstallRow {
  return {
    teamId: text(row.team_id),
    enterpriseId: nullableText(row.enterprise_id),
    teamName: text(row.team_name),
    appId: nullableText(row.app_id),
    botUserId: text(row.bot_user_id),
    botId: text(row.bot_id),
    botToken: text(row.bot_token),
    botScopes: parseJsonOr(row.bot_scopes, [], isStringArray),
    installerUserId: nullableText(row.installer_user_id),
    installedAt: text(row.installed_at),
    updatedAt: text(row.updated_at),
  };
}

export class KnexSlackInstallStore implements SlackInstallStore {
  constructor(private readonly knex: Knex) {}

  get(teamId: string): Promise<SlackInstallRow | undefined> {
    return guard('slackInstalls.get', async () => {
      const row = (await this.knex(INSTALLS).where({ team_id: teamId }).first()) as DbRow | undefined;
      return row ? toRow(row) : undefined;
    });
  }

  put(install: SlackInstallInput): Promise<void> {
    return guard('slackInstalls.put', async () => {
      const now = isoNow();
      const values = {
        enterprise_id: install.enterpriseId,
        team_name: install.teamName,
        app_id: install.appId,
        bot_user_id: install.botUserId,
        bot_id: install.botId,
        bot_token: install.botToken,
        bot_scopes: JSON.stringify(install.botScopes),
        installer_user_id: install.installerUserId,
        updated_at: now,
      };
      await this.knex(INSTALLS)
        .insert({ team_id: install.teamId, installed_at: now, ...values })
        .onConflict('team_id')
        .merge(Object.keys(values));
    });
  }

  remove(teamId: string): Promise<boolean> {
    return guard('slackInstalls.remove', async () =>
      this.knex.transaction(async (trx) => {
        await trx(KEYS).where({ team_id: teamId }).delete();
        return (await trx(INSTALLS).where({ team_id: teamId }).delete()) > 0;
      }),
    );
  }

  list(): Promise<SlackInstallRow[]> {
    return guard('slackInstalls.list', async () =>
      ((await this.knex(INSTALLS).orderBy('team_id')) as DbRow[]).map(toRow),
    );
  }

  teamOf(key: string): Promise<string | undefined> {
    return guard('slackInstalls.teamOf', async () => {
      const row = (await this.knex(KEYS).where({ key }).first('team_id')) as DbRow | undefined;
      return row ? text(row.team_id) : undefined;
    });
  }

  remember(key: string, teamId: string): Promise<void> {
    return guard('slackInstalls.remember', async () => {
      await this.knex(KEYS)
        .insert({ key, team_id: teamId, updated_at: isoNow() })
        .onConflict('key')
        .merge(['team_id', 'updated_at']);
    });
  }

  putState(stateHash: string, installOptions: string, expiresAt: Date): Promise<void> {
    return guard('slackInstalls.putState', async () => {
      await this.knex(STATES).where('expires_at', '<', isoNow()).delete();
      await this.knex(STATES).insert({
        state_hash: stateHash,
        install_options: installOptions,
        expires_at: isoNow(expiresAt),
      });
    });
  }

  takeState(stateHash: string, now: Date): Promise<string | undefined> {
    return guard('slackInstalls.takeState', async () => {
      const row = (await this.knex(STATES).where({ state_hash: stateHash }).first()) as DbRow | undefined;
      if (!row) return undefined;
      // Only the one delete that removed the row may use it: a replay racing the first use finds nothing to delete.
      const taken = await this.knex(STATES).where({ state_hash: stateHash }).delete();
      if (taken !== 1 || text(row.expires_at) < isoNow(now)) return undefined;
      return text(row.install_options);
    });
  }
}
