/**
 * Composition of Slack installs in many workspaces (slack.client_id): the adapter's installation store on the
 * database, bot tokens encrypted at rest with `slack.token_key` (earlier keys in `slack.token_key_previous` still
 * read), install states kept by hash only.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { SlackInstallation, SlackInstallations } from './channels/slack/slack-installations.js';
import type { Config } from './config/index.js';
import { createPurposeCipher, type TokenCipher } from './shared/token-cipher.js';
import type { SlackInstallRow, SlackInstallStore } from './storage/slack-install-store.js';

const SLACK_PURPOSE = {
  label: 'sandpiper-slack-token-key',
  setting: 'slack.token_key (or SANDPIPER_SLACK_TOKEN_KEY)',
  what: 'Slack bot token',
};

/** The cipher of the installs' bot tokens; throws a ConfigError naming the setting when the key is missing or short. */
export function slackTokenCipher(slack: Pick<Config['slack'], 'token_key' | 'token_key_previous'>): TokenCipher {
  return createPurposeCipher(SLACK_PURPOSE, slack.token_key, slack.token_key_previous);
}

const hashState = (state: string): string => createHash('sha256').update(state).digest('hex');

function fromRow(row: SlackInstallRow, cipher: TokenCipher): SlackInstallation {
  return {
    teamId: row.teamId,
    teamName: row.teamName,
    enterpriseId: row.enterpriseId ?? undefined,
    appId: row.appId ?? undefined,
    botUserId: row.botUserId,
    botId: row.botId,
    botToken: cipher.decrypt(row.botToken),
    botScopes: row.botScopes,
    installerUserId: row.installerUserId ?? undefined,
  };
}

export function slackInstallations(store: SlackInstallStore, cipher: TokenCipher): SlackInstallations {
  return {
    get: async (teamId) => {
      const row = await store.get(teamId);
      return row ? fromRow(row, cipher) : undefined;
    },
    save: (install) =>
      store.put({
        teamId: install.teamId,
        enterpriseId: install.enterpriseId ?? null,
        teamName: install.teamName,
        appId: install.appId ?? null,
        botUserId: install.botUserId,
        botId: install.botId,
        botToken: cipher.encrypt(install.botToken),
        botScopes: [...install.botScopes],
        installerUserId: install.installerUserId ?? null,
      }),
    remove: (teamId) => store.remove(teamId),
    teamOf: (key) => store.teamOf(key),
    remember: (key, teamId) => store.remember(key, teamId),
    createState: async (installOptions, expiresAt) => {
      const state = randomBytes(24).toString('base64url');
      await store.putState(hashState(state), installOptions, expiresAt);
      return state;
    },
    takeState: (state, now) => store.takeState(hashState(state), now),
  };
}

/** Re-encrypts the installs' tokens written with an earlier key; returns how many changed. */
export async function rekeySlackInstalls(store: SlackInstallStore, cipher: TokenCipher): Promise<number> {
  let changed = 0;
  for (const row of await store.list()) {
    if (cipher.isCurrent(row.botToken)) continue;
    await store.put({ ...row, botToken: cipher.encrypt(cipher.decrypt(row.botToken)) });
    changed += 1;
  }
  return changed;
}
