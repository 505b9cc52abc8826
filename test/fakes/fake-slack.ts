/** A fake Slack (Web API + Socket Mode WebSocket on one 127.0.0.1 port) for bolt: records calls, injects envelopes. */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import {
  APP_ID,
  BOT_ID,
  FakeSlackState,
  TEAM_ID,
  type FakeSlackMessage,
  type FakeSlackUser,
} from './fake-slack-state.js';
import { handleWebApi } from './fake-slack-web.js';
import { FakeSlackStreams } from './fake-slack-stream.js';
import { FakeSlackSessions } from './fake-slack-sessions.js';
import { FakeSlackOAuth } from './fake-slack-oauth.js';
import type { FakeSlackHttp, HttpKind } from './fake-slack-http.js';
import { FakeFileStore, type FakeFile } from './fake-file-host.js';
import { FakeSocketMode } from './fake-slack-socket.js';
import { waitFor } from '../helpers/wait-for.js';
import { Arrivals } from './arrivals.js';

export type { FakeSlackMessage, FakeSlackUser, FakeView } from './fake-slack-state.js';
export { BOT_USER_ID } from './fake-slack-state.js';
export type { Delivery, Distribution } from './fake-slack-socket.js';

export interface RecordedCall {
  method: string;
  token: string;
  body: Record<string, unknown>;
  status: number;
  /** performance.now() when the request had arrived (benchmarks). */
  hr?: number;
}

interface RateLimitRule {
  method: string;
  remaining: number;
  retryAfterSec: number;
}

export class FakeSlack {
  readonly state: FakeSlackState;
  /** Native streaming; off unless a test turns `streams.rules.enabled` on (then Slack's limits apply). */
  readonly streams: FakeSlackStreams;
  /** Agent sessions (`agents.sessions.*`); `sessions.refuse` makes the workspace refuse them. */
  readonly sessions = new FakeSlackSessions();
  /** When set, events, interactions and commands are POSTed (signed) to the app's Request URL instead of the socket. */
  http: FakeSlackHttp | undefined;
  /** The bot token's scopes, named in every answer's `x-oauth-scopes` header as Slack does. */
  scopes = [
    'app_mentions:read',
    'assistant:write',
    'channels:history',
    'chat:write',
    'commands',
    'im:history',
    'reactions:write',
  ];
  readonly calls: RecordedCall[] = [];
  private readonly arrivals = new Arrivals<RecordedCall>();
  /** Announced once a request to the fake was answered (its change to the fake's state is applied): `until` waits on it. */
  private readonly settled = new Arrivals<string>();
  /**
   * Socket Mode: several connections per app token, each envelope to one of them, retries of unacknowledged events
   * (`fake-slack-socket.ts`). Tests read deliveries, acks and open connections there.
   */
  readonly socket = new FakeSocketMode();
  readonly botToken = 'xoxb-test-bot';
  readonly appToken = 'xapp-test-app';
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<Socket>();
  private readonly rules: RateLimitRule[] = [];
  private readonly failures: { method: string; error: string; remaining: number }[] = [];
  private readonly delays: { method: string; ms: number; remaining: number }[] = [];
  private readonly holds: { method: string; remaining: number }[] = [];
  /** Files shared in messages, served like files.slack.com: only to a bot token of the file's workspace, else Slack's sign-in page. */
  readonly files = new FakeFileStore();
  private pinger: NodeJS.Timeout | undefined;
  private port = 0;

  /** The OAuth v2 install flow (authorize page, oauth.v2.access) and uninstalls. */
  readonly oauth: FakeSlackOAuth;

  private constructor(private readonly server: Server) {
    this.state = new FakeSlackState(() => `http://127.0.0.1:${this.port}`);
    this.state.teams.get(TEAM_ID)?.tokens.add(this.botToken);
    this.streams = new FakeSlackStreams(this.state, this.sessions);
    this.oauth = new FakeSlackOAuth(this.state);
  }

  static async start(): Promise<FakeSlack> {
    const server = createServer();
    const fake = new FakeSlack(server);
    server.on('request', (req, res) => void fake.onRequest(req, res));
    server.on('upgrade', (req, socket, head) => fake.onUpgrade(req, socket as Socket, head));
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.port = (server.address() as AddressInfo).port;
    // The client expects a server ping within 30 s.
    fake.pinger = setInterval(() => fake.socket.sockets().forEach((ws) => ws.ping()), 5_000);
    fake.pinger.unref();
    return fake;
  }

  /** `slack.api_url`: the Web API base. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api/`;
  }

  user(id: string, name: string): FakeSlackUser {
    return { id, name };
  }

  /** The next `times` calls of `method` get HTTP 429 with `retry-after: retryAfterSec`. */
  rateLimit(method: string, times: number, retryAfterSec = 1): void {
    this.rules.push({ method, remaining: times, retryAfterSec });
  }

  /** The next `times` calls of `method` answer `{ok: false, error}` (HTTP 200, as Slack does). */
  failNext(method: string, error: string, times = 1): void {
    this.failures.push({ method, error, remaining: times });
  }

  /** The next `times` calls of `method` are answered after `ms` (a slow Slack), recorded on arrival. */
  delayNext(method: string, ms: number, times = 1): void {
    this.delays.push({ method, ms, remaining: times });
  }

  /**
   * The next `times` calls of `method` are carried out but never answered: the reply is held until the client goes
   * away (a post that landed while its sender was killed before learning its ts).
   */
  holdReplyNext(method: string, times = 1): void {
    this.holds.push({ method, remaining: times });
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** envelope_id → the ack payload the app sent back. */
  get acks(): Map<string, unknown> {
    return this.socket.acks;
  }

  /** Socket Mode connections opened so far (reconnects add one). */
  get connections(): number {
    return this.socket.connections;
  }

  /** When on, events written while no app is connected are retried on the next connection (else they are lost). */
  get retries(): boolean {
    return this.socket.retries;
  }

  set retries(on: boolean) {
    this.socket.retries = on;
  }

  /** Events that reached no app and were not kept for a retry. */
  get lost(): number {
    return this.socket.lost;
  }

  /** Envelopes sent again (retries, redeliveries). */
  get retried(): number {
    return this.socket.retried;
  }

  /** Sends one envelope to one open Socket Mode connection (see `FakeSocketMode.send`); returns its envelope id. */
  send(type: string, payload: Record<string, unknown>, acceptsResponsePayload = type !== 'events_api'): string {
    if (this.http) return this.http.send(type as HttpKind, payload);
    return this.socket.send(type, payload, acceptsResponsePayload);
  }

  /** The workspace uninstalls the app: its tokens stop working and `app_uninstalled` is sent; returns the delivery id. */
  uninstall(teamId: string): string {
    return this.send('events_api', this.oauth.uninstall(teamId), false);
  }

  /** The workspace revokes the bot token: it stops working and `tokens_revoked` is sent; returns the delivery id. */
  revokeTokens(teamId: string): string {
    return this.send('events_api', this.oauth.revoke(teamId), false);
  }

  /** Sends an envelope again with the next `retry_attempt`, as Slack does when an acknowledgement came late or never. */
  redeliver(envelopeId: string, reason = 'timeout'): void {
    this.socket.redeliver(envelopeId, reason);
  }

  /** Open Socket Mode connections. */
  get connected(): number {
    return this.socket.connected;
  }

  /** Cuts the Socket Mode connections without a goodbye (a network drop); the clients reconnect by themselves. */
  dropSocket(): void {
    this.socket.dropAll();
  }

  /** A user writes a message (a mention when `text` contains `<@U0BOT>`); returns it with its envelope ids. */
  userMessage(
    user: FakeSlackUser,
    channel: string,
    text: string,
    threadTs?: string,
  ): { message: FakeSlackMessage; envelopes: string[] } {
    const message = this.state.addMessage({ channel, user: user.id, text, threadTs });
    const envelopes = this.state
      .messageEvents(message, channel.startsWith('D') ? 'im' : 'channel')
      .map((payload) => this.send('events_api', payload, false));
    return { message, envelopes };
  }

  /** Whether `authorization` is `Bearer <a bot token of the workspace>` whose file `path` (`/files-pri/<team>-<id>/…`) is. */
  private mayRead(authorization: string | undefined, path: string): boolean {
    const team = /^\/files-pri\/([A-Z0-9]+)-/.exec(path)?.[1];
    const token = authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : '';
    return team !== undefined && this.state.teamOfToken(token)?.id === team;
  }

  /** A user shares files with a message (subtype `file_share`), served by the fake unless a file names its own URL. */
  userMessageWithFiles(
    user: FakeSlackUser,
    channel: string,
    text: string,
    files: readonly FakeFile[],
    threadTs?: string,
  ): { message: FakeSlackMessage; envelopes: string[] } {
    const message = this.state.addMessage({ channel, user: user.id, text, threadTs });
    const shared = files.map((file, index) => {
      const id = `F0${message.ts.replace('.', '')}${index}`;
      const path = `/files-pri/${this.state.teamOfChannel(channel).id}-${id}/${encodeURIComponent(file.name)}`;
      this.files.put(path, file);
      const url = file.url ?? `http://127.0.0.1:${this.port}${path}`;
      // A file hidden by the free plan's limit comes without URLs.
      const urls =
        url === ''
          ? { mode: 'hidden_by_limit' }
          : { mode: 'hosted', url_private: url, url_private_download: `${url}?download=1` };
      return {
        id,
        name: file.name,
        title: file.name,
        mimetype: file.contentType,
        filetype: 'auto',
        size: file.declaredSize ?? file.bytes.length,
        ...urls,
      };
    });
    const extra = { subtype: 'file_share', files: shared, upload: false, display_as_bot: false };
    const envelopes = this.state
      .messageEvents(message, channel.startsWith('D') ? 'im' : 'channel', extra)
      .map((payload) => this.send('events_api', payload, false));
    return { message, envelopes };
  }

  /** A user runs `/sandpiper <text>` in a channel; returns the envelope id and the command's response_url key. */
  slashCommand(
    user: FakeSlackUser,
    channel: string,
    text: string,
    command = '/sandpiper',
  ): { envelopeId: string; triggerId: string } {
    const payload = this.state.commandPayload(command, text, channel, user);
    return { envelopeId: this.send('slash_commands', payload), triggerId: String(payload.trigger_id) };
  }

  /** A user clicks the button `actionId` on a message (`value` overrides the button's, e.g. for a stale client). */
  click(
    message: FakeSlackMessage,
    actionId: string,
    user: FakeSlackUser,
    value?: string,
  ): { envelopeId: string; triggerId: string } {
    const payload = this.state.blockActionsPayload(message, actionId, user, value);
    return { envelopeId: this.send('interactive', payload), triggerId: String(payload.trigger_id) };
  }

  /** A user submits an opened modal with text values by input id. */
  submitView(triggerId: string, user: FakeSlackUser, values: Record<string, string>): string {
    const view = this.state.views.find((v) => v.triggerId === triggerId);
    if (!view) throw new Error('fake slack: no view opened with that trigger');
    return this.send('interactive', this.state.viewSubmissionPayload(view, user, values));
  }

  /** Asks the connected clients (or only `connection`) to reconnect, as Slack does before rotating a connection. */
  requestReconnect(connection?: number): void {
    this.socket.requestReconnect(connection);
  }

  /**
   * The next Web API call of the app, without polling: `'post'` (chat.postMessage), `'edit'` (chat.update), or any
   * call `match` accepts. Only calls after this one count: set it up before acting.
   */
  next(kind: 'post' | 'edit' | ((call: RecordedCall) => boolean), timeoutMs = 15_000): Promise<RecordedCall> {
    const method = kind === 'post' ? 'chat.postMessage' : kind === 'edit' ? 'chat.update' : undefined;
    const match = typeof kind === 'function' ? kind : (call: RecordedCall): boolean => call.method === method;
    return this.arrivals.next(
      match,
      `fake slack: the next ${typeof kind === 'string' ? kind : 'matching call'}`,
      timeoutMs,
    );
  }

  /**
   * Resolves with `probe`'s first truthy value, checked now and again each time the fake has answered a request of the
   * app (no polling); rejects naming `what` after `timeoutMs`.
   */
  until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
    return this.settled.until(probe, `fake slack: ${what}`, timeoutMs);
  }

  /** Resolves with `probe`'s first truthy value (test/helpers/wait-for.ts); rejects after `timeoutMs` naming `what`. */
  waitFor<T>(probe: () => T | undefined | null | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
    return waitFor(() => probe() || undefined, `fake slack: ${what}`, timeoutMs);
  }

  /** Closes after the client's sockets have closed (or 2 s), so socket-mode's close handshake never hangs. */
  async close(): Promise<void> {
    if (this.pinger) clearInterval(this.pinger);
    const deadline = Date.now() + 2_000;
    while (this.socket.connected > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    this.socket.close();
    this.wss.close();
    this.server.closeAllConnections();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    if (!(req.url ?? '').startsWith('/link/')) {
      socket.destroy();
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.socket.open(ws));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.once('close', () => this.settled.record(req.url ?? ''));
    const raw = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    const url = req.url ?? '';
    if (this.files.serve(req, res, (header, path) => this.mayRead(header, path))) return;
    if (url.startsWith('/response_url/')) return this.onResponseUrl(url.slice('/response_url/'.length), raw, res);
    if (url.startsWith('/oauth/v2/authorize')) {
      const answer = this.oauth.authorize(new URL(url, `http://127.0.0.1:${this.port}`));
      res
        .writeHead(answer.status, answer.location ? { location: answer.location } : { 'content-type': 'text/plain' })
        .end(answer.body ?? '');
      return;
    }
    const method = url.startsWith('/api/') ? (url.slice('/api/'.length).split('?')[0] ?? '') : '';
    const body = parseBody(raw, String(req.headers['content-type'] ?? ''));
    const token = String(req.headers.authorization ?? '').replace(/^Bearer\s+/, '');
    const rule = this.rules.find((r) => r.method === method && r.remaining > 0);
    if (rule) {
      rule.remaining -= 1;
      this.calls.push({ method, token, body, status: 429 });
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(rule.retryAfterSec) });
      res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
      return;
    }
    const recorded = { method, token, body, status: 200, hr: performance.now() };
    this.calls.push(recorded);
    this.arrivals.record(recorded);
    const delay = this.delays.find((d) => d.method === method && d.remaining > 0);
    if (delay) {
      delay.remaining -= 1;
      await new Promise((resolve) => setTimeout(resolve, delay.ms));
    }
    const failure = this.failures.find((f) => f.method === method && f.remaining > 0);
    if (failure) failure.remaining -= 1;
    const wsUrl = `ws://127.0.0.1:${this.port}/link/?ticket=${randomUUID()}&app_id=${APP_ID}`;
    const reply = failure
      ? { ok: false, error: failure.error }
      : handleWebApi(method, body, token, {
          state: this.state,
          appToken: this.appToken,
          oauth: this.oauth,
          wsUrl,
          streams: this.streams,
          sessions: this.sessions,
        });
    const hold = reply.ok === true ? this.holds.find((h) => h.method === method && h.remaining > 0) : undefined;
    if (hold) {
      hold.remaining -= 1;
      if (!res.writableEnded) await once(res, 'close');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'x-oauth-scopes': this.scopes.join(',') });
    res.end(JSON.stringify(reply));
  }

  private onResponseUrl(key: string, raw: string, res: ServerResponse): void {
    const user = this.state.responseUrls.get(key);
    if (!user) {
      res.writeHead(404).end('no such response_url');
      return;
    }
    const body = parseBody(raw, 'application/json');
    this.state.ephemerals.push({ via: key, user, text: String(body.text ?? '') });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }
}

const JSON_FIELDS = new Set(['blocks', 'attachments', 'view', 'chunks', 'metadata']);

function parseBody(raw: string, contentType: string): Record<string, unknown> {
  if (contentType.includes('application/json')) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  const body: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    body[key] = JSON_FIELDS.has(key) ? safeJson(value) : value;
  }
  return body;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

export { BOT_ID, TEAM_ID };
