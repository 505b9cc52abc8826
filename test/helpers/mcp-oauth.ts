/**
 * Shared by the MCP OAuth tests: a manager on the fake OAuth MCP server, a link inbox, a browser, the callback route,
 * and `useOAuthFixture`, the suite set-up of them all.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Hono } from 'hono';
import { createMcpManager, type McpManager } from '../../src/agent/mcp/mcp-manager.js';
import type { McpAuthorizationRequest } from '../../src/agent/mcp/mcp-manager-context.js';
import type { ToolResult } from '../../src/agent/tools/tool.js';
import { createOAuthCallbackRoutes } from '../../src/gateway/http/routes/oauth-callback.js';
import { startFakeOAuthMcpServer, type FakeOAuthMcpServer } from '../fakes/fake-oauth-mcp-server.js';
import { httpSpec, toolContext } from '../fakes/mcp-servers.js';
import { createTestStores, type TestStores } from './test-stores.js';

export const PUBLIC_URL = 'https://sandpiper.example.test';
export const TOKEN_KEY = 'test-token-key-0123456789abcdef';

export function outputText(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}

/** The links sent so far, and a promise for each one still to come (resolved by the handler, not by polling). */
export class LinkInbox {
  readonly links: McpAuthorizationRequest[] = [];
  private readonly waiting = new Map<number, (link: McpAuthorizationRequest) => void>();

  deliver(link: McpAuthorizationRequest): void {
    this.links.push(link);
    this.waiting.get(this.links.length)?.(link);
    this.waiting.delete(this.links.length);
  }

  /** The `count`-th link (1-based), now or when it arrives. */
  number(count: number): Promise<McpAuthorizationRequest> {
    const link = this.links[count - 1];
    if (link) return Promise.resolve(link);
    return new Promise((resolve) => this.waiting.set(count, resolve));
  }
}

/** A manager whose private links land in `inbox`. */
export function startManager(
  fake: FakeOAuthMcpServer,
  db: TestStores,
  inbox: LinkInbox,
  authorizationTimeoutMs = 20_000,
): McpManager {
  const manager = createMcpManager({
    servers: [httpSpec('remote', fake.url, { oauth: { scopes: [] } })],
    parentEnv: {},
    oauth: {
      credentials: db.stores.mcpCredentials,
      states: db.stores.mcpOAuthStates,
      pollMs: 50,
      tokenKey: TOKEN_KEY,
      publicUrl: PUBLIC_URL,
      authorizationTimeoutMs,
      callerOf: (workstreamId) =>
        Promise.resolve({ userId: workstreamId.replace(/^ws-/, ''), conversationId: workstreamId }),
    },
  });
  manager.onAuthorization((request) => {
    inbox.deliver(request);
    return Promise.resolve();
  });
  return manager;
}

/** The gateway's real callback route in front of `manager`. */
export function callbackApp(manager: McpManager): Hono {
  return createOAuthCallbackRoutes({
    complete: (state, code) => manager.completeAuthorization(state, code),
    decline: (state) => manager.declineAuthorization(state),
  });
}

/** Plays the user's browser: sign in at the link, then follow the redirect to the gateway's callback route. */
export async function authorizeInBrowser(
  fake: FakeOAuthMcpServer,
  manager: McpManager,
  link: McpAuthorizationRequest,
  user: string,
): Promise<string> {
  const callback = await fake.signIn(link.url, user);
  assert.equal(`${callback.origin}${callback.pathname}`, `${PUBLIC_URL}/v1/oauth/callback`);
  const response = await callbackApp(manager).request(`${callback.pathname}${callback.search}`);
  assert.equal(response.status, 200, await response.text());
  return callback.searchParams.get('state') ?? '';
}

export function call(manager: McpManager, tool: string, user: string): Promise<ToolResult> {
  return manager.callTool(tool, {}, toolContext({ workstreamId: `ws-${user}` }));
}

export interface OAuthFixtureOptions {
  /** A database URL for the stores (PostgreSQL for the instance tests); a temporary SQLite file without. */
  url?: string;
  /** How many managers (instances) share the fake and the database (default 1). */
  instances?: number;
  authorizationTimeoutMs?: number;
  /** Adjusts the fake before any manager starts (e.g. a short token lifetime). */
  prepare?: (fake: FakeOAuthMcpServer) => void;
}

/** What a test of the fixture uses; filled in by its `before`. */
export interface OAuthFixture {
  fake: FakeOAuthMcpServer;
  db: TestStores;
  inbox: LinkInbox;
  /** The first instance; a test may replace it (a restart): `after` shuts down this one and every one of `managers`. */
  manager: McpManager;
  managers: McpManager[];
}

/**
 * Registers `before`/`after` in the calling `describe`: a fake OAuth MCP server, fresh test stores, one link inbox and
 * `instances` started managers on them; everything is closed again after the suite.
 */
export function useOAuthFixture(options: OAuthFixtureOptions = {}): OAuthFixture {
  const fixture = { inbox: new LinkInbox(), managers: [] as McpManager[] } as OAuthFixture;
  before(async () => {
    fixture.fake = await startFakeOAuthMcpServer();
    options.prepare?.(fixture.fake);
    fixture.db = await createTestStores(options.url === undefined ? {} : { url: options.url });
    for (let index = 0; index < (options.instances ?? 1); index += 1) {
      fixture.managers.push(startManager(fixture.fake, fixture.db, fixture.inbox, options.authorizationTimeoutMs));
    }
    fixture.manager = fixture.managers[0] as McpManager;
    await Promise.all(fixture.managers.map((manager) => manager.start()));
  });
  after(async () => {
    await Promise.all([...new Set([fixture.manager, ...fixture.managers])].map((manager) => manager?.shutdown()));
    await fixture.db?.close();
    await fixture.fake?.close();
  });
  return fixture;
}
