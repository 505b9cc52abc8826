/**
 * `GET /v1/oauth/callback`: where a user's browser lands after authorizing an MCP server (docs/design/mcp-oauth.md).
 * The `state` alone says whose authorization it is; a wrong, used, expired or foreign one gets a 4xx and authorizes
 * nothing. The answer is a short plain page; it never echoes the code, the state or a token.
 */
import { Hono } from 'hono';

export type OAuthCallbackOutcome = { ok: true; server: string } | { ok: false; status: 400 | 502; message: string };

export interface OAuthCallbackDeps {
  /** The MCP manager's completeAuthorization (absent while MCP has not started). */
  complete(state: string, code: string): Promise<OAuthCallbackOutcome>;
  /** The authorization server said no (`error=`): forget the state so the waiting call stops. */
  decline(state: string): Promise<void>;
}

const MAX_PARAM = 2048;

function page(text: string): string {
  const safe = text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><title>Sandpiper</title><p>${safe}</p>`;
}

export function createOAuthCallbackRoutes(deps: OAuthCallbackDeps): Hono {
  const routes = new Hono();
  routes.get('/v1/oauth/callback', async (context) => {
    const state = context.req.query('state') ?? '';
    const code = context.req.query('code') ?? '';
    const error = context.req.query('error');
    if (state.length < 16 || state.length > MAX_PARAM || code.length > MAX_PARAM) {
      return context.html(page('This authorization link is not valid.'), 400);
    }
    if (error !== undefined) {
      await deps.decline(state);
      return context.html(page('Authorization was declined. You can close this page.'), 400);
    }
    if (code === '') return context.html(page('This authorization link is not valid.'), 400);
    const outcome = await deps.complete(state, code);
    if (!outcome.ok) return context.html(page(outcome.message), outcome.status);
    return context.html(
      page(`Authorized ${outcome.server}. You can close this page and return to the conversation.`),
      200,
    );
  });
  return routes;
}
