/**
 * `POST /slack/events` (slack.mode = "http"): Slack's Events API callbacks, interactivity and slash commands, handed to
 * the Slack adapter, which verifies the signature and acknowledges within Slack's 3 s. No bolt is loaded here.
 */
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
  return routes;
}
