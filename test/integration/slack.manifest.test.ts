/**
 * slack-app-manifest.yaml parses and covers what the Slack adapter uses: every event it listens to, a scope for every
 * Web API method it calls, interactivity for its buttons and modals, Socket Mode, and the default slash command.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SLACK_BOT_SCOPES } from '../../src/channels/slack/slack-install.js';
import { slackConfigSchema } from '../../src/config/config-schema.js';
import { packageRoot } from '../../src/shared/package-root.js';

const root = packageRoot(import.meta.url);
const slackDir = join(root, 'src', 'channels', 'slack');

/** Web API method → the bot scopes that allow it (any one; empty: no scope needed). Unknown methods fail the test. */
const METHOD_SCOPES: Record<string, readonly string[]> = {
  'auth.test': [],
  'apps.connections.open': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'views.open': [],
  'views.update': [],
  'views.push': [],
  'conversations.open': ['im:write'],
  'conversations.info': ['channels:read', 'groups:read', 'im:read'],
  'conversations.replies': ['channels:history', 'groups:history', 'im:history'],
  'conversations.history': ['channels:history', 'groups:history', 'im:history'],
  'users.info': ['users:read'],
  'files.info': ['files:read'],
  'usergroups.users.list': ['usergroups:read'],
  'agents.sessions.setStatus': ['chat:write'],
  'agents.sessions.rename': ['chat:write'],
};
/** Event the adapter listens to → the manifest's bot events it needs. */
const EVENT_SUBSCRIPTIONS: Record<string, readonly string[]> = {
  message: ['message.channels', 'message.groups', 'message.im'],
  app_mention: ['app_mention'],
  agent_session_stopped: ['agent_session_stopped'],
  app_uninstalled: ['app_uninstalled'],
  tokens_revoked: ['tokens_revoked'],
};
/** Bot event → the scope Slack requires for it. */
const EVENT_SCOPES: Record<string, string> = {
  app_mention: 'app_mentions:read',
  'message.channels': 'channels:history',
  'message.groups': 'groups:history',
  'message.im': 'im:history',
  'message.mpim': 'mpim:history',
  // Needs no scope of its own beyond being an agent (agent_view adds assistant:write).
  agent_session_stopped: 'assistant:write',
  // Every app may subscribe to these (installs in many workspaces remove the install on them).
  app_uninstalled: '',
  tokens_revoked: '',
};

interface Manifest {
  features: {
    bot_user?: unknown;
    agent_view?: unknown;
    slash_commands: { command: string }[];
    app_home?: { messages_tab_enabled?: boolean; messages_tab_read_only_enabled?: boolean };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { bot_events: string[] };
    interactivity: { is_enabled: boolean };
    socket_mode_enabled: boolean;
  };
}

/** The Slack adapter's sources (tests excluded), concatenated. */
function adapterSource(): string {
  return readdirSync(slackDir)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => readFileSync(join(slackDir, name), 'utf8'))
    .join('\n');
}

const matches = (source: string, pattern: RegExp): string[] => [...source.matchAll(pattern)].map((m) => m[1] ?? '');

describe('slack app manifest', () => {
  const manifest = parse(readFileSync(join(root, 'slack-app-manifest.yaml'), 'utf8')) as Manifest;
  const source = adapterSource();
  const scopes = new Set(manifest.oauth_config.scopes.bot);

  it('is a manifest with a bot user, Socket Mode and interactivity (buttons and modals arrive over the socket)', () => {
    assert.ok(manifest.features.bot_user);
    assert.equal(manifest.settings.socket_mode_enabled, true);
    assert.match(source, /SocketModeReceiver/);
    assert.match(source, /app\.(action|view)\(/);
    assert.equal(manifest.settings.interactivity.is_enabled, true);
    assert.equal(manifest.features.app_home?.messages_tab_enabled, true, 'direct messages reach the app');
    assert.equal(manifest.features.app_home?.messages_tab_read_only_enabled, false);
  });

  it('registers the default slash command', () => {
    const slash = slackConfigSchema.parse({}).slash_command;
    assert.deepEqual(
      manifest.features.slash_commands.map((c) => c.command),
      [slash],
    );
    assert.ok(scopes.has('commands'));
  });

  it('subscribes to every event the adapter listens to, with the scopes those events need', () => {
    const listened = matches(source, /app\.event\(\s*'([a-z_]+)'/g);
    assert.ok(listened.includes('message') && listened.includes('app_mention'), 'the scan finds the listeners');
    const events = new Set(manifest.settings.event_subscriptions.bot_events);
    for (const event of listened) {
      const needed = EVENT_SUBSCRIPTIONS[event];
      assert.ok(needed, `event ${event}: add it to EVENT_SUBSCRIPTIONS and the manifest`);
      for (const name of needed) assert.ok(events.has(name), `the manifest subscribes to ${name}`);
    }
    for (const event of events) {
      const scope = EVENT_SCOPES[event];
      assert.ok(
        scope === '' || (scope !== undefined && scopes.has(scope)),
        `event ${event} needs scope ${String(scope)}`,
      );
    }
  });

  it('grants a scope for every Web API method the adapter calls', () => {
    const called = new Set([
      ...matches(source, /\b(?:call|apiCall)\(\s*'([a-z]+(?:\.[a-zA-Z]+)+)'/g),
      ...matches(source, /\bclient\.((?:[a-z]+\.)+[a-zA-Z]+)\(/g),
    ]);
    for (const method of ['chat.postMessage', 'chat.startStream', 'auth.test'])
      assert.ok(called.has(method), `the scan finds ${method}`);
    for (const method of called) {
      const allowed = METHOD_SCOPES[method];
      assert.ok(allowed, `method ${method}: add its scopes to METHOD_SCOPES (and the manifest)`);
      assert.ok(
        allowed.length === 0 || allowed.some((scope) => scopes.has(scope)),
        `${method} needs one of ${allowed.join(', ')}`,
      );
    }
    if (/url_private/.test(source)) assert.ok(scopes.has('files:read'), 'file downloads need files:read');
    if (called.has('agents.sessions.setStatus'))
      assert.ok(
        manifest.features.agent_view && scopes.has('assistant:write'),
        'agent sessions need the app declared as an agent',
      );
  });

  it('asks an install (OAuth v2, installs in many workspaces) for exactly its bot scopes', () => {
    assert.deepEqual([...SLACK_BOT_SCOPES].sort(), [...scopes].sort());
  });

  it('is where the README says', () => {
    // assert.ok, not assert.match: a failing match would diff the whole README.
    assert.ok(
      readFileSync(join(root, 'README.md'), 'utf8').includes('slack-app-manifest.yaml'),
      'the README points to the manifest',
    );
  });
});
