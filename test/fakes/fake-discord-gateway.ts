/**
 * The WebSocket half of the fake Discord: HELLO/IDENTIFY/READY, heartbeats, dispatches and RESUME with replay, per
 * shard. With `shardCount` > 1 an IDENTIFY must carry `shard: [id, count]` with the configured count (else close 4010
 * Invalid shard / 4011 Sharding required, as Discord does); READY lists only that shard's guilds and carries the
 * `shard` array; a guild's events go only to the shard `(BigInt(guild_id) >> 22n) % count`, and direct messages (no
 * guild) only to shard 0. Every shard has its own session, sequence and replay history, so op 7 / op 9 / RESUME work
 * per shard. Discord itself lets two connections identify the same shard (both get its events); for us that is a
 * bug, so it is counted in `duplicateIdentifies` and `holders(shard)` says how many live connections hold a shard.
 */
import type { Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

interface Dispatch {
  s: number;
  t: string;
  d: unknown;
}

export interface GatewayHooks {
  token: string;
  botUser: Record<string, unknown>;
  applicationId: string;
  /** The GUILD_CREATE payloads of a shard's guilds, built fresh for each IDENTIFY (include active threads). */
  guildCreates(shard: number): Record<string, unknown>[];
  url(): string;
}

/** The shard a guild's events go to, as Discord computes it. */
export function shardOf(guildId: string, shardCount: number): number {
  return Number((BigInt(guildId) >> 22n) % BigInt(shardCount));
}

/** One shard's session: the sockets that identified or resumed it get its live dispatches. */
class ShardSession {
  readonly ready = new Set<WebSocket>();
  readonly history: Dispatch[] = [];
  readonly held: Array<{ t: string; d: unknown }> = [];
  sessionId = '';
  seq = 0;
  constructor(readonly id: number) {}

  next(t: string, d: unknown): Dispatch {
    this.seq += 1;
    const frame: Dispatch = { s: this.seq, t, d };
    this.history.push(frame);
    if (this.history.length > 5000) this.history.shift();
    return frame;
  }
}

/** Speaks just enough of Discord's gateway protocol for discord.js: one resumable session per shard. */
export class FakeDiscordGateway {
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  private readonly shards: ShardSession[];
  /** Which shard a socket identified or resumed. */
  private readonly shardOfSocket = new Map<WebSocket, ShardSession>();
  private sessionCounter = 0;
  identifies = 0;
  resumes = 0;
  heartbeats = 0;
  /** performance.now() of the latest READY sent (benchmarks measure catch-up from it). */
  readyAt = 0;
  /** op 9 sent (by `invalidate`, or to a RESUME of an unknown session). */
  invalidations = 0;
  /** Dispatches that reached no bot (sent while none was connected and not kept for a RESUME). */
  lost = 0;
  /** IDENTIFYs of a shard another live connection already held (a shard held twice: a bug of ours). */
  duplicateIdentifies = 0;
  /** IDENTIFYs refused for a bad `shard` field (close 4010 / 4011). */
  refusedShards = 0;
  /**
   * When set, dispatches made while no bot is connected to their shard are kept and sent on that shard's next
   * IDENTIFY right after READY, before GUILD_CREATE (so they reach discord.js while it is still getting ready).
   */
  holdUntilIdentify = false;
  /** When set, an IDENTIFY is answered (READY, GUILD_CREATE) only at `releaseReady()`: a shard stays in its handshake. */
  holdReady = false;
  private readonly heldReadies: Array<() => void> = [];

  constructor(
    server: Server,
    private readonly hooks: GatewayHooks,
    private readonly heartbeatMs = 41_250,
    readonly shardCount = 1,
  ) {
    this.shards = Array.from({ length: shardCount }, (_, id) => new ShardSession(id));
    this.wss = new WebSocketServer({ server, path: '/gateway' });
    this.wss.on('connection', (socket) => this.onConnection(socket));
  }

  /** The session id of shard 0 (tests of one shard read it). */
  get sessionId(): string {
    return this.shards[0]?.sessionId ?? '';
  }

  /** Sends a dispatch to the shard of its guild (shard 0 without a guild), or keeps it for replay on RESUME. */
  dispatch(t: string, d: unknown): void {
    const guildId = (d as { guild_id?: unknown } | null)?.guild_id;
    const shard = this.shards[typeof guildId === 'string' ? shardOf(guildId, this.shardCount) : 0];
    if (!shard) return;
    if (this.holdUntilIdentify && shard.ready.size === 0) {
      shard.held.push({ t, d });
      return;
    }
    if (shard.sessionId === '') {
      // No session (never identified, or invalidated): nobody will ever receive this event.
      this.lost += 1;
      return;
    }
    const frame = shard.next(t, d);
    for (const socket of shard.ready) this.send(socket, { op: 0, ...frame });
  }

  /** Connections that identified or resumed a shard (all shards, or one). */
  get connected(): number {
    return this.shards.reduce((sum, shard) => sum + shard.ready.size, 0);
  }

  /** How many live connections hold `shard` (1 when exactly one instance runs it). */
  holders(shard: number): number {
    return this.shards[shard]?.ready.size ?? 0;
  }

  /** Closes the bot's sockets (of one shard, or all) with a resumable close code; discord.js reconnects and RESUMEs. */
  drop(code = 4000, shard?: number): void {
    for (const socket of this.sockets)
      if (shard === undefined || this.shardOfSocket.get(socket)?.id === shard) socket.close(code, 'fake drop');
  }

  /** Sends op 7 RECONNECT (to one shard, or all), as Discord does before moving a session: the bot RESUMEs. */
  reconnect(shard?: number): void {
    for (const session of this.sessionsOf(shard))
      for (const socket of session.ready) this.send(socket, { op: 7, d: null, s: null, t: null });
  }

  /**
   * Sends op 9 INVALID SESSION (not resumable) and forgets the session (of one shard, or all): the bot must IDENTIFY
   * again, and what is dispatched until then is lost (a new session starts with an empty history), as on Discord.
   */
  invalidate(shard?: number): void {
    for (const session of this.sessionsOf(shard)) {
      this.invalidations += 1;
      session.sessionId = '';
      for (const socket of session.ready) this.send(socket, { op: 9, d: false, s: null, t: null });
      session.ready.clear();
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private sessionsOf(shard: number | undefined): ShardSession[] {
    return shard === undefined ? this.shards : this.shards.filter((session) => session.id === shard);
  }

  private onConnection(socket: WebSocket): void {
    this.sockets.add(socket);
    const forget = (): void => {
      this.sockets.delete(socket);
      this.shardOfSocket.get(socket)?.ready.delete(socket);
      this.shardOfSocket.delete(socket);
    };
    socket.on('close', forget);
    socket.on('error', forget);
    socket.on('message', (raw) => this.onFrame(socket, raw.toString()));
    this.send(socket, { op: 10, d: { heartbeat_interval: this.heartbeatMs }, s: null, t: null });
  }

  private onFrame(socket: WebSocket, raw: string): void {
    const frame = JSON.parse(raw) as { op: number; d: Record<string, unknown> | number | null };
    const data = (typeof frame.d === 'object' && frame.d !== null ? frame.d : {}) as Record<string, unknown>;
    switch (frame.op) {
      case 1:
        this.heartbeats += 1;
        this.send(socket, { op: 11, d: null, s: null, t: null });
        return;
      case 2:
        this.identify(socket, data);
        return;
      case 6:
        this.resume(socket, data);
        return;
      default:
        return;
    }
  }

  /** The shard an IDENTIFY asks for, or the close code refusing it. */
  private shardAsked(data: Record<string, unknown>): ShardSession | number {
    const field = data.shard;
    if (field === undefined) return this.shardCount === 1 ? (this.shards[0] as ShardSession) : 4011;
    if (!Array.isArray(field) || field.length !== 2) return 4010;
    const [id, count] = field as unknown[];
    if (count !== this.shardCount || typeof id !== 'number' || !Number.isInteger(id) || id < 0 || id >= this.shardCount)
      return 4010;
    return this.shards[id] as ShardSession;
  }

  private identify(socket: WebSocket, data: Record<string, unknown>): void {
    if (data.token !== this.hooks.token) {
      socket.close(4004, 'Authentication failed');
      return;
    }
    const shard = this.shardAsked(data);
    if (typeof shard === 'number') {
      this.refusedShards += 1;
      socket.close(shard, shard === 4011 ? 'Sharding required' : 'Invalid shard');
      return;
    }
    this.identifies += 1;
    this.countIfStillHeld(socket, shard);
    if (this.holdReady) this.heldReadies.push(() => this.sendReady(socket, shard));
    else this.sendReady(socket, shard);
  }

  /**
   * Counts a duplicate IDENTIFY when another connection of the shard is still alive: it answers a ping (ws answers
   * pings itself). A connection whose process was killed may look open until its close is read, which a busy test
   * process reads late; it never answers, so only two live connections count.
   */
  private countIfStillHeld(socket: WebSocket, shard: ShardSession): void {
    const others = [...shard.ready].filter((other) => other !== socket && other.readyState === other.OPEN);
    if (others.length === 0) return;
    let counted = false;
    for (const other of others) {
      other.once('pong', () => {
        if (counted) return;
        counted = true;
        this.duplicateIdentifies += 1;
      });
      other.ping();
    }
  }

  /** Answers the IDENTIFYs held by `holdReady` (those whose socket is still open) and stops holding. */
  releaseReady(): void {
    this.holdReady = false;
    for (const send of this.heldReadies.splice(0)) send();
  }

  private sendReady(socket: WebSocket, shard: ShardSession): void {
    if (socket.readyState !== socket.OPEN) return;
    this.sessionCounter += 1;
    shard.sessionId = `fake-session-${this.sessionCounter}`;
    shard.history.length = 0;
    this.shardOfSocket.set(socket, shard);
    const guilds = this.hooks.guildCreates(shard.id);
    this.readyAt = performance.now();
    this.dispatchTo(socket, shard, 'READY', {
      v: 10,
      user: this.hooks.botUser,
      guilds: guilds.map((guild) => ({ id: guild.id, unavailable: true })),
      session_id: shard.sessionId,
      resume_gateway_url: this.hooks.url(),
      shard: [shard.id, this.shardCount],
      application: { id: this.hooks.applicationId, flags: 0 },
    });
    for (const early of shard.held.splice(0)) this.dispatchTo(socket, shard, early.t, early.d);
    for (const guild of guilds) this.dispatchTo(socket, shard, 'GUILD_CREATE', guild);
    shard.ready.add(socket);
  }

  private resume(socket: WebSocket, data: Record<string, unknown>): void {
    const shard = this.shards.find((session) => session.sessionId !== '' && session.sessionId === data.session_id);
    if (data.token !== this.hooks.token || !shard) {
      this.invalidations += 1;
      this.send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    this.resumes += 1;
    this.shardOfSocket.set(socket, shard);
    const after = typeof data.seq === 'number' ? data.seq : 0;
    for (const frame of shard.history) if (frame.s > after) this.send(socket, { op: 0, ...frame });
    shard.seq += 1;
    this.send(socket, { op: 0, s: shard.seq, t: 'RESUMED', d: {} });
    shard.ready.add(socket);
  }

  private dispatchTo(socket: WebSocket, shard: ShardSession, t: string, d: unknown): void {
    this.send(socket, { op: 0, ...shard.next(t, d) });
  }

  private send(socket: WebSocket, payload: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }
}
