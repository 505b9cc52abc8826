/**
 * Slack's HTTP delivery (Events API, interactivity, slash commands) as a bolt receiver: the gateway's own HTTP server
 * hands each `POST /slack/events` here. Every request's `v0` signature is checked with bolt's `isValidSlackRequest`
 * (and a five-minute window either side of now); a request that fails gets 401 and reaches nothing. A verified
 * request that was already accepted here (the same signature and retry number: a replay) gets 401 too; Slack's own
 * retries (`X-Slack-Retry-Num`) pass and are deduplicated by the gateway's ledger by event id, also across instances.
 */
import { isValidSlackRequest, type App, type Receiver, type ReceiverEvent } from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';

/** Slack's window for a request's timestamp. */
const WINDOW_SEC = 5 * 60;
/** Slack waits 3 s for the acknowledgement; past this the request is answered empty (200) so it is never retried for lateness. */
const ACK_DEADLINE_MS = 2_500;

export interface SlackHttpRequest {
  body: string;
  /** Lower-case header names. */
  headers: (name: string) => string | undefined;
}

export interface SlackHttpResponse {
  status: number;
  body: string;
  contentType: string;
}

const text = (status: number, body = ''): SlackHttpResponse => ({
  status,
  body,
  contentType: 'text/plain; charset=utf-8',
});
const json = (value: unknown): SlackHttpResponse => ({
  status: 200,
  body: JSON.stringify(value),
  contentType: 'application/json',
});

export class SlackHttpReceiver implements Receiver {
  private app: App | undefined;
  /** Signatures of accepted requests, kept for the window: an exact replay is refused. */
  private readonly accepted = new LRUCache<string, true>({ max: 50_000, ttl: 2 * WINDOW_SEC * 1000 });
  /** Set while the gateway drains: new requests get 503, so Slack (or the load balancer) tries another instance. */
  paused = false;

  constructor(
    private readonly signingSecret: string,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  init(app: App): void {
    this.app = app;
  }

  /** Nothing to open: requests arrive through the gateway's HTTP server. */
  async start(): Promise<void> {
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    return Promise.resolve();
  }

  /** One request from Slack; resolves with the answer once bolt acknowledged it (or the deadline passed). */
  async handle(request: SlackHttpRequest): Promise<SlackHttpResponse> {
    const signature = request.headers('x-slack-signature') ?? '';
    if (!this.verified(request, signature)) return text(401, 'invalid signature');
    // The retry number is not signed: a replay that adds one passes here and is stopped by the ledger instead.
    const seen = `${signature}:${request.headers('x-slack-retry-num') ?? ''}`;
    if (this.accepted.has(seen)) return text(401, 'replayed request');
    const app = this.app;
    if (!app || this.paused) return text(503, 'not ready');
    const body = parseBody(request.body, request.headers('content-type') ?? '');
    if (!body) return text(400, 'unreadable body');
    this.accepted.set(seen, true);
    if (body.type === 'url_verification') return json({ challenge: body.challenge });
    if (body.ssl_check !== undefined) return text(200);
    return this.dispatch(app, body, request);
  }

  private verified(request: SlackHttpRequest, signature: string): boolean {
    const timestamp = Number(request.headers('x-slack-request-timestamp') ?? Number.NaN);
    if (!signature || !Number.isInteger(timestamp) || Math.abs(this.now() / 1000 - timestamp) > WINDOW_SEC)
      return false;
    const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': timestamp };
    return isValidSlackRequest({
      signingSecret: this.signingSecret,
      body: request.body,
      headers,
      nowMilliseconds: this.now(),
    });
  }

  private async dispatch(
    app: App,
    body: Record<string, unknown>,
    request: SlackHttpRequest,
  ): Promise<SlackHttpResponse> {
    let answer: (response: SlackHttpResponse) => void = () => undefined;
    const acknowledged = new Promise<SlackHttpResponse>((resolve) => {
      answer = resolve;
    });
    const retryNum = Number(request.headers('x-slack-retry-num') ?? Number.NaN);
    const retryReason = request.headers('x-slack-retry-reason');
    const event: ReceiverEvent = {
      body,
      ...(Number.isInteger(retryNum) ? { retryNum } : {}),
      ...(retryReason ? { retryReason } : {}),
      ack: async (response?: unknown) => {
        answer(
          response === undefined || response === ''
            ? text(200)
            : typeof response === 'string'
              ? text(200, response)
              : json(response),
        );
      },
    };
    // Purpose: timeout (Slack's 3 s acknowledgement deadline).
    const deadline = setTimeout(() => answer(text(200)), ACK_DEADLINE_MS);
    try {
      const processed = app.processEvent(event).then(
        () => answer(text(200)),
        (error: unknown) => {
          this.logger.warn({ error: truncate(describeError(error), 300) }, 'slack http event failed');
          answer(text(500));
        },
      );
      void processed;
      return await acknowledged;
    } finally {
      clearTimeout(deadline);
    }
  }
}

/** A request body: JSON (Events API), a form with a JSON `payload` (interactivity) or a plain form (slash commands). */
export function parseBody(raw: string, contentType: string): Record<string, unknown> | undefined {
  try {
    if (contentType.includes('application/json')) {
      const value: unknown = JSON.parse(raw);
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, unknown>)
        : undefined;
    }
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    if (payload !== null) return parseBody(payload, 'application/json');
    return Object.fromEntries(form);
  } catch {
    return undefined;
  }
}
