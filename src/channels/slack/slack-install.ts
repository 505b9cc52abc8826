/**
 * Installs in many workspaces (slack.client_id, HTTP mode): Slack's OAuth v2 flow through @slack/oauth's
 * InstallProvider. `GET /slack/install` sets the state cookie and redirects to Slack's authorize page;
 * `GET /slack/oauth_redirect` checks the state (single use, in the database, and the browser's cookie), exchanges the
 * code with `oauth.v2.access` and stores the install (its token encrypted by the store). A forged, replayed or
 * expired state gets 400 and nothing is stored.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  InstallProvider,
  InvalidStateError,
  LogLevel,
  type CallbackOptions,
  type Installation,
  type InstallationStore,
  type InstallURLOptions,
  type StateStore,
} from '@slack/oauth';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';
import { boltLogger } from './slack-bolt-logger.js';
import type { SlackInstallation, SlackInstallations } from './slack-installations.js';

/** The bot scopes an install asks for: those of slack-app-manifest.yaml (test/integration/slack.manifest.test.ts). */
export const SLACK_BOT_SCOPES: readonly string[] = [
  'app_mentions:read',
  'channels:history',
  'groups:history',
  'im:history',
  'im:read',
  'im:write',
  'assistant:write',
  'chat:write',
  'reactions:write',
  'commands',
  'files:read',
  'users:read',
  'usergroups:read',
];
const STATE_TTL_MS = 10 * 60_000;

export interface SlackInstallSettings {
  clientId: string;
  clientSecret: string;
  /** `gateway.public_url`: the redirect URL is `<publicUrl>/slack/oauth_redirect`. */
  publicUrl: string;
  /** `slack.api_url` (tests): the authorize page is then served next to it. */
  apiUrl: string | undefined;
}

export class SlackInstaller {
  private readonly provider: InstallProvider;
  private readonly urlOptions: InstallURLOptions;

  constructor(
    settings: SlackInstallSettings,
    private readonly installations: SlackInstallations,
    private readonly logger: Logger,
    private readonly onInstalled: (install: SlackInstallation) => void,
  ) {
    const redirectUri = `${settings.publicUrl.replace(/\/+$/, '')}/slack/oauth_redirect`;
    this.urlOptions = { scopes: [...SLACK_BOT_SCOPES], redirectUri };
    this.provider = new InstallProvider({
      clientId: settings.clientId,
      clientSecret: settings.clientSecret,
      stateStore: this.stateStore(),
      installationStore: this.installationStore(),
      installUrlOptions: this.urlOptions,
      directInstall: true,
      logger: boltLogger(logger),
      logLevel: LogLevel.WARN,
      ...(settings.apiUrl
        ? {
            authorizationUrl: new URL('../oauth/v2/authorize', settings.apiUrl).toString(),
            clientOptions: { slackApiUrl: settings.apiUrl },
          }
        : {}),
    });
  }

  /** `GET /slack/install`: a 302 to Slack's authorize page with a new state (also set as a cookie). */
  async handleInstall(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await this.provider.handleInstallPath(req, res, undefined, this.urlOptions);
  }

  /** `GET /slack/oauth_redirect`: 200 with the install stored, 400 for a bad state or code, 500 when Slack or the store failed. */
  async handleRedirect(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const callbacks: CallbackOptions = {
      success: (installation, _options, _req, response) =>
        page(response, 200, `Sandpiper is installed in ${installation.team?.name ?? 'your workspace'}.`),
      failure: (error, _options, _req, response) => {
        const code = (error as { code?: string }).code ?? '';
        const isClientFault = /missing_state|invalid_state|missing_code|authorization/.test(code);
        this.logger.warn({ code, error: truncate(describeError(error), 200) }, 'slack install refused');
        page(
          response,
          isClientFault ? 400 : 500,
          isClientFault
            ? 'This install link is not valid (expired, used, or from another browser). Start again from the install page.'
            : 'The install could not be completed. Try again.',
        );
      },
    };
    await this.provider.handleCallback(req, res, callbacks, this.urlOptions);
  }

  private stateStore(): StateStore {
    return {
      generateStateParam: (installOptions, now) =>
        this.installations.createState(JSON.stringify(installOptions), new Date(now.getTime() + STATE_TTL_MS)),
      verifyStateParam: async (now, state) => {
        const options = await this.installations.takeState(state, now);
        if (options === undefined) throw new InvalidStateError('The state is unknown, used or expired.');
        return JSON.parse(options) as InstallURLOptions;
      },
    };
  }

  private installationStore(): InstallationStore {
    return {
      storeInstallation: async (installation) => {
        const install = toInstallation(installation);
        await this.installations.save(install);
        this.logger.info({ team: install.teamId }, 'slack workspace installed');
        this.onInstalled(install);
      },
      fetchInstallation: async (query) => {
        const install = await this.installations.get(query.teamId ?? query.enterpriseId ?? '');
        if (!install) throw new Error('slack workspace is not installed');
        const team = { id: install.teamId, name: install.teamName };
        return {
          team,
          enterprise: undefined,
          user: { id: install.installerUserId ?? '', token: undefined, scopes: undefined },
          bot: {
            token: install.botToken,
            userId: install.botUserId,
            id: install.botId,
            scopes: [...install.botScopes],
          },
        };
      },
    };
  }
}

function toInstallation(installation: Installation): SlackInstallation {
  const bot = installation.bot;
  const teamId = installation.team?.id ?? installation.enterprise?.id;
  if (!bot || !teamId) throw new Error('slack install without a bot token or a workspace');
  return {
    teamId,
    teamName: installation.team?.name ?? teamId,
    enterpriseId: installation.enterprise?.id,
    appId: installation.appId,
    botUserId: bot.userId,
    botId: bot.id,
    botToken: bot.token,
    botScopes: bot.scopes,
    installerUserId: installation.user.id,
  };
}

function page(response: ServerResponse, status: number, message: string): void {
  const escaped = message.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  response.end(
    `<!doctype html><html><head><meta charset="utf-8"><title>Sandpiper</title></head><body><p>${escaped}</p></body></html>`,
  );
}
