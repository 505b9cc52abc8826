/**
 * `POST /slack/events` (slack.mode = "http"): Slack's Events API callbacks, interactivity and slash commands, handed to
 * the Slack adapter, which verifies the signature and acknowledges within Slack's 3 s. `GET /slack/install` and
 * `GET /slack/oauth_redirect` (slack.client_id) run the install flow in the adapter on the raw Node request. No bolt
 * is loaded here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';

export interface SlackEventsRequest {
  body: string;
  headers: (name: string) => string | undefined;
}

export interface SlackEventsResponse {
  status: number;
  body: string;
  contentType: string;
}

/** What answers the route: the Slack adapter (`handleHttp`). */
export interface SlackEventsTarget {
  handleHttp(request: SlackEventsRequest): Promise<SlackEventsResponse>;
  /** Answers an install-flow request itself; false when installs in many workspaces are not configured. */
  handleInstallRequest?(step: 'install' | 'redirect', req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/** The adapter when it takes HTTP deliveries; undefined otherwise. */
export function slackEventsTarget(adapter: unknown): SlackEventsTarget | undefined {
  const candidate = adapter as Partial<SlackEventsTarget> | undefined;
  return typeof candidate?.handleHttp === 'function' ? (candidate as SlackEventsTarget) : undefined;
}

export function createSlackEventsRoutes(target: () => SlackEventsTarget | undefined): Hono {
  const routes = new Hono();
  routes.post('/slack/events', async (context) => {
    const handler = target();
    // Slack retries what it could not deliver: a 503 is not lost.
    if (!handler) return context.text('not ready', 503);
    const body = await context.req.text();
    const answer = await handler.handleHttp({ body, headers: (name) => context.req.header(name) });
    return context.body(answer.body, answer.status as 200, { 'content-type': answer.contentType });
  });
  for (const [path, step] of [
    ['/slack/install', 'install'],
    ['/slack/oauth_redirect', 'redirect'],
  ] as const) {
    routes.get(path, async (context) => {
      const handler = target()?.handleInstallRequest;
      if (!handler) return context.text('slack installs are not configured (slack.client_id)', 404);
      // Served by @hono/node-server (http-server.ts): the raw request and response are its bindings.
      const node = context.env as HttpBindings;
      const handled = await handler.call(target(), step, node.incoming, node.outgoing);
      return handled ? RESPONSE_ALREADY_SENT : context.text('slack installs are not configured (slack.client_id)', 404);
    });
  }
  return routes;
}
