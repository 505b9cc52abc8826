/**
 * The fake Slack's OAuth v2 install flow, as InstallProvider (@slack/oauth) drives it: the authorize page
 * (`GET /oauth/v2/authorize`, where the installing user "approves" at once and is redirected to the app's
 * `redirect_uri` with a one-time `code` and the app's `state`), and `oauth.v2.access`, which swaps the code for a bot
 * token of that workspace (only with the app's client id and secret, the same redirect URI, once). Uninstalling
 * revokes the workspace's tokens; the fake then sends `app_uninstalled` / `tokens_revoked` like Slack.
 */
import { randomUUID } from 'node:crypto';
import { APP_ID, TEAM_ID, type FakeSlackState } from './fake-slack-state.js';

type Reply = Record<string, unknown>;

interface PendingCode {
  teamId: string;
  redirectUri: string;
  scopes: string;
  userId: string;
}

export class FakeSlackOAuth {
  readonly clientId = 'fake-client-id.123';
  readonly clientSecret = 'fake-client-secret-0123456789';
  /** The workspace the next install goes into (the user picks it on Slack's page). */
  nextTeam = TEAM_ID;
  /** Authorize page requests, as URLs (tests check the scopes and the state). */
  readonly authorizeRequests: URL[] = [];
  /** `oauth.v2.access` answers that carried a token. */
  issued = 0;
  private readonly codes = new Map<string, PendingCode>();

  constructor(private readonly state: FakeSlackState) {}

  /** The authorize page: a 302 back to the app with a code, or 400 for a bad client id or redirect URI. */
  authorize(url: URL): { status: number; location?: string; body?: string } {
    this.authorizeRequests.push(url);
    const redirectUri = url.searchParams.get('redirect_uri') ?? '';
    if (url.searchParams.get('client_id') !== this.clientId) return { status: 400, body: 'invalid_client_id' };
    if (!/^https?:\/\//.test(redirectUri)) return { status: 400, body: 'bad_redirect_uri' };
    const code = `code-${randomUUID()}`;
    this.codes.set(code, {
      teamId: this.nextTeam,
      redirectUri,
      scopes: url.searchParams.get('scope') ?? '',
      userId: 'U0INSTALLER',
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = url.searchParams.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return { status: 302, location: back.toString() };
  }

  /** `oauth.v2.access` (no token: the client id and secret are in the body). */
  access(body: Record<string, unknown>): Reply {
    if (body.client_id !== this.clientId || body.client_secret !== this.clientSecret)
      return { ok: false, error: 'invalid_client' };
    const pending = this.codes.get(String(body.code ?? ''));
    if (!pending) return { ok: false, error: 'invalid_code' };
    this.codes.delete(String(body.code));
    if (body.redirect_uri !== undefined && body.redirect_uri !== pending.redirectUri)
      return { ok: false, error: 'bad_redirect_uri' };
    const team = this.state.teams.get(pending.teamId);
    if (!team) return { ok: false, error: 'team_not_found' };
    const token = `xoxb-${team.id}-${randomUUID()}`;
    team.tokens.add(token);
    this.issued += 1;
    return {
      ok: true,
      app_id: APP_ID,
      authed_user: { id: pending.userId },
      scope: pending.scopes,
      token_type: 'bot',
      access_token: token,
      bot_user_id: team.botUserId,
      team: { id: team.id, name: team.name },
      enterprise: null,
      is_enterprise_install: false,
    };
  }

  /** Revokes every token of a workspace (it uninstalled the app); returns the `app_uninstalled` event to send. */
  uninstall(teamId: string): Record<string, unknown> {
    this.state.teams.get(teamId)?.tokens.clear();
    return eventOf(teamId, { type: 'app_uninstalled', event_ts: '1700000000.000100' });
  }

  /** Revokes the workspace's bot tokens; returns the `tokens_revoked` event to send. */
  revoke(teamId: string): Record<string, unknown> {
    const team = this.state.teams.get(teamId);
    team?.tokens.clear();
    return eventOf(teamId, {
      type: 'tokens_revoked',
      tokens: { oauth: [], bot: [team?.botUserId ?? 'U0BOT'] },
      event_ts: '1700000000.000200',
    });
  }
}

function eventOf(teamId: string, event: Record<string, unknown>): Record<string, unknown> {
  return {
    token: 'verif',
    team_id: teamId,
    api_app_id: APP_ID,
    type: 'event_callback',
    event_id: `Ev${randomUUID().slice(0, 8)}`,
    event_time: 1700000000,
    event,
  };
}
