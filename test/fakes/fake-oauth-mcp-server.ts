/**
 * A protected MCP server and its OAuth authorization server, built on the MCP SDK's server classes (mcpAuthRouter,
 * requireBearerAuth, McpServer over the streamable HTTP transport). Its `whoami` tool answers the user whose token
 * the request carried. The "browser" signs in as a user through the `x-fake-user` header.
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

interface IssuedToken {
  user: string;
  clientId: string;
  expiresAt: number;
  resource: string;
}

class FakeAuthProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, { clientId: string; params: AuthorizationParams; user: string }>();
  readonly access = new Map<string, IssuedToken>();
  readonly refresh = new Map<string, { user: string; clientId: string; resource: string }>();
  /** Every authorization request's parameters (state, PKCE challenge, resource). */
  readonly authorizations: AuthorizationParams[] = [];
  refreshes = 0;
  /** `expires_in` of the access tokens issued from now on. */
  lifetimeSeconds = 3600;
  readonly issued: string[] = [];

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => Promise.resolve(this.clients.get(id)),
      registerClient: (client) => {
        const full = {
          ...client,
          client_id: randomUUID(),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        } as OAuthClientInformationFull;
        this.clients.set(full.client_id, full);
        return Promise.resolve(full);
      },
    };
  }

  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const user = String(res.req.headers['x-fake-user'] ?? '');
    this.authorizations.push(params);
    if (user === '') {
      res.status(401).send('sign in first');
      return Promise.resolve();
    }
    const code = randomUUID();
    this.codes.set(code, { clientId: client.client_id, params, user });
    const target = new URL(params.redirectUri);
    target.searchParams.set('code', code);
    if (params.state !== undefined) target.searchParams.set('state', params.state);
    res.redirect(target.toString());
    return Promise.resolve();
  }

  challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const entry = this.codes.get(code);
    if (!entry) return Promise.reject(new Error('unknown code'));
    return Promise.resolve(entry.params.codeChallenge);
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const entry = this.codes.get(code);
    if (!entry || entry.clientId !== client.client_id) return Promise.reject(new Error('bad code'));
    this.codes.delete(code);
    return Promise.resolve(this.issue(entry.user, client.client_id, String(entry.params.resource ?? '')));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string): Promise<OAuthTokens> {
    const entry = this.refresh.get(refreshToken);
    if (!entry || entry.clientId !== client.client_id) return Promise.reject(new Error('bad refresh token'));
    this.refresh.delete(refreshToken);
    this.refreshes += 1;
    return Promise.resolve(this.issue(entry.user, client.client_id, entry.resource));
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    const entry = this.access.get(token);
    if (!entry) return Promise.reject(new Error('unknown token'));
    return Promise.resolve({
      token,
      clientId: entry.clientId,
      scopes: [],
      expiresAt: Math.floor(entry.expiresAt / 1000),
      extra: { user: entry.user },
    });
  }

  private issue(user: string, clientId: string, resource: string): OAuthTokens {
    const accessToken = `at-${randomUUID()}`;
    const refreshToken = `rt-${randomUUID()}`;
    this.access.set(accessToken, { user, clientId, expiresAt: Date.now() + this.lifetimeSeconds * 1000, resource });
    this.refresh.set(refreshToken, { user, clientId, resource });
    this.issued.push(accessToken, refreshToken);
    return {
      access_token: accessToken,
      token_type: 'bearer',
      expires_in: this.lifetimeSeconds,
      refresh_token: refreshToken,
    };
  }
}

export interface FakeOAuthMcpServer {
  /** The protected MCP endpoint. */
  url: string;
  provider: FakeAuthProvider;
  /** Plays the browser: opens the authorization link signed in as `user`; returns the redirect (callback) URL. */
  signIn(authorizationUrl: string, user: string): Promise<URL>;
  /** Every access token issued so far expires now (refresh tokens stay valid). */
  expireAccessTokens(): void;
  /** Every token string ever issued (to look for in the database file). */
  issuedSecrets(): string[];
  /** How many MCP requests were refused with 401 so far. */
  refusedRequests(): number;
  close(): Promise<void>;
}

function mcpServerFor(auth: AuthInfo | undefined): McpServer {
  const server = new McpServer({ name: 'fake-oauth-mcp', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Who the token belongs to' }, () => ({
    content: [{ type: 'text', text: `user=${String(auth?.extra?.['user'] ?? 'nobody')}` }],
  }));
  return server;
}

export async function startFakeOAuthMcpServer(): Promise<FakeOAuthMcpServer> {
  const provider = new FakeAuthProvider();
  const app = express();
  const http: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const mcpUrl = new URL('/mcp', base);
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: mcpUrl }));
  const bearer = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  let refused = 0;
  app.use('/mcp', (_req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode === 401) refused += 1;
    });
    next();
  });
  app.post('/mcp', express.json(), bearer, async (req, res) => {
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    const server = mcpServerFor(req.auth);
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', bearer, (_req, res) => void res.status(405).end());
  return {
    url: mcpUrl.toString(),
    provider,
    signIn: async (authorizationUrl, user) => {
      const response = await fetch(authorizationUrl, { redirect: 'manual', headers: { 'x-fake-user': user } });
      const location = response.headers.get('location');
      if (response.status !== 302 || location === null) throw new Error(`sign-in failed: ${response.status}`);
      return new URL(location);
    },
    expireAccessTokens: () => {
      for (const entry of provider.access.values()) entry.expiresAt = Date.now() - 1000;
    },
    issuedSecrets: () => [...provider.issued],
    refusedRequests: () => refused,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
