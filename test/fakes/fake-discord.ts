/**
 * A fake Discord (REST + gateway WebSocket on one 127.0.0.1 port) for discord.js: records requests, injects events.
 *
 * Sharding: `FakeDiscord.start({ shards: 2, guilds: 2 })` serves `GET /gateway/bot` with `shards: 2` and holds two
 * guilds; guild K's id is `fake.guildId(K)`, its text channel `fake.channelOf(K)` (guild 0 has `channelIds`, default
 * `300000000000000001`), and it lives on shard `fake.shardOfGuild(K)` (with these ids guild K is on shard
 * `(k + base) % shards`, so N guilds over N shards put one guild on each shard). Post into guild K with
 * `fake.state.injectMessage(fake.channelOf(K), user, text, true)`; the event goes only to the connection(s) that
 * identified that shard, DMs only to shard 0. `fake.gateway.holders(shard)` counts live connections of a shard and
 * `fake.gateway.duplicateIdentifies` counts a shard identified while another connection held it (assert 0);
 * `drop/reconnect/invalidate(shard?)` act on one shard or all. Defaults (1 shard, 1 guild) are the single-bot fake.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { DiscordBodyValidator, type BodyProblem } from './discord-openapi.js';
import { FakeFileStore, type FakeFile } from './fake-file-host.js';
import { FakeDiscordGateway, shardOf } from './fake-discord-gateway.js';
import { routeRest, type RestReply } from './fake-discord-rest.js';
import { FakeDiscordState, type FakeMessage, type FakeUser } from './fake-discord-state.js';
import { waitFor } from '../helpers/wait-for.js';
import { Arrivals } from './arrivals.js';

export type { FakeChannel, FakeGuild, FakeInteraction, FakeMessage, FakeUser } from './fake-discord-state.js';

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
  at: number;
  /** performance.now() when the request was read (benchmarks). */
  hr: number;
}

interface RateLimitRule {
  method: string;
  path: RegExp;
  remaining: number;
  retryAfterSec: number;
}

interface FailureRule {
  method: string;
  path: RegExp;
  remaining: number;
  reply: RestReply;
}

export interface FakeDiscordOptions {
  token?: string;
  heartbeatMs?: number;
  /** Text channels of guild 0 (ids). */
  channelIds?: string[];
  /** The shard count `GET /gateway/bot` recommends and IDENTIFY must use (default 1). */
  shards?: number;
  /** How many guilds the bot is in (default 1); guild K >= 1 has one text channel, `channelOf(K)`. */
  guilds?: number;
}

const DISCORD_KINDS: Record<'post' | 'edit', (request: RecordedRequest) => boolean> = {
  post: (request) => request.method === 'POST' && /^\/channels\/\d+\/messages$/.test(request.path),
  edit: (request) => request.method === 'PATCH' && /^\/channels\/\d+\/messages\/\d+$/.test(request.path),
};

export class FakeDiscord {
  readonly state: FakeDiscordState;
  readonly requests: RecordedRequest[] = [];
  private readonly arrivals = new Arrivals<RecordedRequest>();
  /** Announced once a request to the fake was answered (its change to the fake's state is applied): `until` waits on it. */
  private readonly settled = new Arrivals<string>();
  private readonly rules: RateLimitRule[] = [];
  private readonly failures: FailureRule[] = [];
  private readonly holdRules: Array<{ method: string; path: RegExp }> = [];
  private readonly held: Array<() => void> = [];
  private gatewayServer: FakeDiscordGateway | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  rateLimited = 0;
  /** Request bodies refused because they break Discord's OpenAPI description (tests assert there are none). */
  readonly invalidBodies: BodyProblem[] = [];
  private readonly validator = sharedValidator();
  /** Attachment bytes, served like Discord's CDN (signed URLs, no token) on the fake's own origin. */
  readonly files = new FakeFileStore();

  private constructor(
    private readonly server: Server,
    readonly token: string,
    channelIds: string[],
    guilds: number,
    readonly shardCount: number,
  ) {
    this.state = new FakeDiscordState(
      channelIds,
      (t, d) => {
        this.checkDispatch(t, d);
        this.gateway.dispatch(t, d);
      },
      guilds,
    );
  }

  static async start(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
    const server = createServer();
    const shards = options.shards ?? 1;
    const fake = new FakeDiscord(
      server,
      options.token ?? 'test-token',
      options.channelIds ?? ['300000000000000001'],
      options.guilds ?? 1,
      shards,
    );
    server.on('request', (req, res) => fake.onRequest(req, res));
    server.on('connection', (socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    fake.gatewayServer = new FakeDiscordGateway(
      server,
      {
        token: fake.token,
        botUser: { ...fake.state.bot },
        applicationId: fake.state.applicationId,
        guildCreates: (shard) => fake.state.guildCreates(shard, shards),
        url: () => `ws://127.0.0.1:${fake.port}/gateway`,
      },
      options.heartbeatMs,
      shards,
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.port = (server.address() as AddressInfo).port;
    return fake;
  }

  /** discord.js `rest.api` option (and `discord.api_url`). */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/api`;
  }

  /** The id of guild K (0-based). */
  guildId(k: number): string {
    const guild = this.state.guilds[k];
    if (!guild) throw new Error(`the fake has no guild ${k}`);
    return guild.id;
  }

  /** The (first) text channel of guild K. */
  channelOf(k: number): string {
    const channel = this.state.guilds[k]?.channelIds[0];
    if (channel === undefined) throw new Error(`the fake has no guild ${k}`);
    return channel;
  }

  /** The shard guild K's events go to. */
  shardOfGuild(k: number): number {
    return shardOf(this.guildId(k), this.shardCount);
  }

  get gateway(): FakeDiscordGateway {
    if (!this.gatewayServer) throw new Error('fake discord not started');
    return this.gatewayServer;
  }

  /** The next `times` requests matching `method` + `path` get 429 with `retry_after`. */
  rateLimit(method: string, path: RegExp, times: number, retryAfterSec = 0.2): void {
    this.rules.push({ method, path, remaining: times, retryAfterSec });
  }

  /** The next `times` requests matching `method` + `path` fail like a missing permission (403, code 50001). */
  refuse(method: string, path: RegExp, times: number): void {
    this.failures.push({
      method,
      path,
      remaining: times,
      reply: { status: 403, body: { message: 'Missing Access', code: 50001 } },
    });
  }

  /**
   * The next request matching `method` + `path` takes effect at once, but its reply is held back until
   * `releaseHeld()`: the platform shows the message while the client still waits (a stop or crash in that window).
   * A request refused by `refuse` is held the same way: its refusal arrives when released.
   */
  holdReply(method: string, path: RegExp): void {
    this.holdRules.push({ method, path });
  }

  /** Requests whose reply is being held. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Sends every held reply. */
  releaseHeld(): void {
    for (const send of this.held.splice(0)) send();
  }

  /** Drops every pending `refuse` rule (permission restored). */
  allowAll(): void {
    this.failures.length = 0;
  }

  /** A user writes a message with files attached (served by the fake's CDN unless a file names its own URL). */
  injectWithFiles(
    channelId: string,
    author: FakeUser,
    content: string,
    files: readonly FakeFile[],
    mentionBot = false,
  ): FakeMessage {
    const attachments = files.map((file) => {
      const id = this.state.snowflake();
      const path = `/attachments/${channelId}/${id}/${encodeURIComponent(file.name)}`;
      this.files.put(path, file);
      const url = file.url ?? `http://127.0.0.1:${this.port}${path}?ex=0&is=0&hm=fake`;
      return {
        id,
        filename: file.name,
        size: file.declaredSize ?? file.bytes.length,
        url,
        proxy_url: url,
        content_type: file.contentType,
      };
    });
    return this.state.injectMessage(channelId, author, content, mentionBot, undefined, attachments);
  }

  user(id: string, name: string): FakeUser {
    const user = {
      id,
      username: name,
      discriminator: '0',
      global_name: name,
      avatar: null,
      public_flags: 0,
      flags: 0,
      primary_guild: null,
    };
    this.state.users.set(id, user);
    return user;
  }

  /**
   * The next REST request of the bot, without polling: `'post'` a message posted to a channel or thread, `'edit'` a
   * message edited, or any request `match` accepts. Only requests after the call count: set it up before acting.
   */
  next(kind: 'post' | 'edit' | ((request: RecordedRequest) => boolean), timeoutMs = 15_000): Promise<RecordedRequest> {
    const match = typeof kind === 'function' ? kind : DISCORD_KINDS[kind];
    return this.arrivals.next(
      match,
      `fake discord: the next ${typeof kind === 'string' ? kind : 'matching request'}`,
      timeoutMs,
    );
  }

  /**
   * Resolves with `probe`'s first truthy value, checked now and again each time the fake has answered a request of the
   * app (no polling); rejects naming `what` after `timeoutMs`.
   */
  until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
    return this.settled.until(probe, `fake discord: ${what}`, timeoutMs);
  }

  /** Resolves with `predicate`'s first truthy value (test/helpers/wait-for.ts); rejects after `timeoutMs`. */
  waitFor<T>(predicate: () => T | undefined | null | false, timeoutMs = 15_000, what = 'condition'): Promise<T> {
    return waitFor(() => predicate() || undefined, `fake discord: ${what}`, timeoutMs);
  }

  async close(): Promise<void> {
    await this.gatewayServer?.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A direct message the fake dispatches must look like one from Discord (the spec's message object). */
  private checkDispatch(t: string, d: unknown): void {
    if (t !== 'MESSAGE_CREATE' || (d as { guild_id?: unknown }).guild_id !== undefined) return;
    const problems = this.validator?.checkSchema('MessageResponse', d) ?? [];
    if (problems.length > 0) this.invalidBodies.push({ method: 'DISPATCH', path: t, errors: problems });
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    res.once('close', () => this.settled.record(req.url ?? ''));
    if (this.files.serve(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text && (req.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : undefined;
      const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/').replace(/^\/api\/v10/, '');
      const method = req.method ?? 'GET';
      const recorded = { method, path, body, at: Date.now(), hr: performance.now() };
      this.requests.push(recorded);
      this.arrivals.record(recorded);
      const rule = this.rules.find((r) => r.remaining > 0 && r.method === method && r.path.test(path));
      if (rule) {
        rule.remaining -= 1;
        this.rateLimited += 1;
        this.reply(res, tooManyRequests(rule.retryAfterSec));
        return;
      }
      const failure = this.failures.find((f) => f.remaining > 0 && f.method === method && f.path.test(path));
      if (failure) {
        failure.remaining -= 1;
        this.replyOrHold(res, method, path, failure.reply);
        return;
      }
      const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
      const problems = [
        ...(this.validator?.check(method, path, body) ?? []),
        ...(this.validator?.checkQuery(method, path, query) ?? []),
      ];
      if (problems.length > 0) {
        this.invalidBodies.push({ method, path, errors: problems });
        this.reply(res, { status: 400, body: { message: 'Invalid Form Body', code: 50035, errors: problems } });
        return;
      }
      const needsAuth = !path.startsWith('/interactions/') && !path.startsWith('/webhooks/');
      if (needsAuth && req.headers.authorization !== `Bot ${this.token}`) {
        this.reply(res, { status: 401, body: { message: '401: Unauthorized', code: 0 } });
        return;
      }
      const reply = routeRest(
        this.state,
        { method, path, body, query },
        { url: `ws://127.0.0.1:${this.port}/gateway`, shards: this.shardCount },
      );
      this.replyOrHold(res, method, path, reply);
    });
  }

  private replyOrHold(res: ServerResponse, method: string, path: string, reply: RestReply): void {
    const hold = this.holdRules.findIndex((r) => r.method === method && r.path.test(path));
    if (hold < 0) return this.reply(res, reply);
    this.holdRules.splice(hold, 1);
    this.held.push(() => this.reply(res, reply));
  }

  private reply(res: ServerResponse, reply: RestReply): void {
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    if (reply.body === undefined) {
      res.writeHead(reply.status, headers).end();
      return;
    }
    headers['content-type'] = 'application/json';
    res.writeHead(reply.status, headers).end(JSON.stringify(reply.body));
  }
}

function tooManyRequests(retryAfterSec: number): RestReply {
  return {
    status: 429,
    headers: {
      'retry-after': String(retryAfterSec),
      'x-ratelimit-scope': 'user',
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset-after': String(retryAfterSec),
      'x-ratelimit-bucket': 'fake-bucket',
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterSec, global: false },
  };
}

let validatorOnce: DiscordBodyValidator | undefined | null = null;
/** One validator per process: the spec is large, and its compiled operations are shared by every fake. */
function sharedValidator(): DiscordBodyValidator | undefined {
  if (validatorOnce === null) validatorOnce = DiscordBodyValidator.load();
  return validatorOnce;
}
