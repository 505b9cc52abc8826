/**
 * The fake Slack's HTTP delivery (an app with Request URLs instead of Socket Mode): each event, interaction or slash
 * command is POSTed to the app's URL as Slack does, signed `v0` with the signing secret (`X-Slack-Signature`,
 * `X-Slack-Request-Timestamp`), with `X-Slack-Retry-Num` on retries. Tests can also send it badly signed, stale,
 * unsigned or replayed.
 */
import { createHmac, randomUUID } from 'node:crypto';

export type HttpKind = 'events_api' | 'slash_commands' | 'interactive';

export interface HttpDeliveryOptions {
  /** Seconds since the epoch the request claims (default now). */
  timestampSec?: number;
  /** Sign with another secret (a forger). */
  secret?: string;
  /** Send this signature instead of the right one; null sends none. */
  signature?: string | null;
  /** `X-Slack-Retry-Num` (a retry Slack sends itself: new timestamp and signature, same body). */
  retryNum?: number;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export interface HttpAnswer {
  status: number;
  body: string;
  /** Milliseconds from sending to the answer. */
  ms: number;
}

export class FakeSlackHttp {
  /** Delivery id → the app's answer, for deliveries sent through `send`. */
  readonly answers = new Map<string, HttpAnswer>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    readonly url: string,
    readonly signingSecret: string,
  ) {}

  /** Slack's `v0` signature of a body at a timestamp. */
  sign(body: string, timestampSec: number, secret = this.signingSecret): string {
    return `v0=${createHmac('sha256', secret).update(`v0:${timestampSec}:${body}`).digest('hex')}`;
  }

  /** The request Slack would send for a payload: JSON for events, a form for commands, `payload=` for interactivity. */
  request(kind: HttpKind, payload: Record<string, unknown>, options: HttpDeliveryOptions = {}): SignedRequest {
    const body = encode(kind, payload);
    const timestamp = options.timestampSec ?? Math.floor(Date.now() / 1000);
    const signature = options.signature === undefined ? this.sign(body, timestamp, options.secret) : options.signature;
    const headers: Record<string, string> = {
      'content-type': kind === 'events_api' ? 'application/json' : 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
    };
    if (signature !== null) headers['x-slack-signature'] = signature;
    if (options.retryNum !== undefined)
      Object.assign(headers, { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' });
    return { body, headers };
  }

  /** POSTs a prepared request (a replay sends the same one twice). */
  async post(request: SignedRequest, url = this.url): Promise<HttpAnswer> {
    const started = performance.now();
    const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
    return { status: response.status, body: await response.text(), ms: performance.now() - started };
  }

  /** Signs and POSTs one payload; resolves with the answer. */
  deliver(kind: HttpKind, payload: Record<string, unknown>, options: HttpDeliveryOptions = {}): Promise<HttpAnswer> {
    return this.post(this.request(kind, payload, options));
  }

  /** Fire and forget (as the socket's `send`): the answer lands in `answers` under the returned id. */
  send(kind: HttpKind, payload: Record<string, unknown>): string {
    const id = typeof payload.event_id === 'string' ? payload.event_id : `H${randomUUID().slice(0, 8)}`;
    const sent = this.deliver(kind, payload).then(
      (answer) => this.answers.set(id, answer),
      (error: unknown) => this.answers.set(id, { status: 0, body: String(error), ms: 0 }),
    );
    this.pending.add(sent);
    void sent.finally(() => this.pending.delete(sent));
    return id;
  }

  /** Resolves once every delivery sent so far has its answer. */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}

function encode(kind: HttpKind, payload: Record<string, unknown>): string {
  if (kind === 'events_api') return JSON.stringify(payload);
  if (kind === 'interactive') return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  return new URLSearchParams(
    Object.entries(payload).map(([key, value]): [string, string] => [key, String(value)]),
  ).toString();
}
