/** The WebSocket half of the fake Discord: HELLO/IDENTIFY/READY, heartbeats, dispatches and RESUME with replay. */
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
  /** The GUILD_CREATE payload, built fresh for each IDENTIFY (includes active threads). */
  guildCreate(): Record<string, unknown>;
  url(): string;
}

/** Speaks just enough of Discord's gateway protocol for discord.js: one session, resumable after a drop. */
export class FakeDiscordGateway {
  private readonly wss: WebSocketServer;
  private readonly sockets = new Set<WebSocket>();
  /** Sockets that identified or resumed: only they receive live dispatches. */
  private readonly ready = new Set<WebSocket>();
  private readonly history: Dispatch[] = [];
  private seq = 0;
  private sessionCounter = 0;
  sessionId = '';
  identifies = 0;
  resumes = 0;
  heartbeats = 0;
  /** performance.now() of the latest READY sent (benchmarks measure catch-up from it). */
  readyAt = 0;
  /** op 9 sent (by `invalidate`, or to a RESUME of an unknown session). */
  invalidations = 0;
  /** Dispatches that reached no bot (sent while none was connected and not kept for a RESUME). */
  lost = 0;
  /**
   * When set, dispatches made while no bot is connected are kept and sent on the next IDENTIFY right after READY,
   * before GUILD_CREATE (so they reach discord.js while it is still getting ready).
   */
  holdUntilIdentify = false;
  private readonly held: Array<{ t: string; d: unknown }> = [];

  constructor(server: Server, private readonly hooks: GatewayHooks, private readonly heartbeatMs = 41_250) {
    this.wss = new WebSocketServer({ server, path: '/gateway' });
    this.wss.on('connection', (socket) => this.onConnection(socket));
  }

  /** Sends a dispatch to the connected bot (or keeps it for replay on RESUME while disconnected). */
  dispatch(t: string, d: unknown): void {
    if (this.holdUntilIdentify && this.ready.size === 0) {
      this.held.push({ t, d });
      return;
    }
    if (this.sessionId === '') {
      // No session (never identified, or invalidated): nobody will ever receive this event.
      this.lost += 1;
      return;
    }
    this.seq += 1;
    const frame: Dispatch = { s: this.seq, t, d };
    this.history.push(frame);
    if (this.history.length > 5000) this.history.shift();
    for (const socket of this.ready) this.send(socket, { op: 0, ...frame });
  }

  get connected(): number {
    return this.ready.size;
  }

  /** Closes the bot's socket with a resumable close code; discord.js reconnects and sends RESUME. */
  drop(code = 4000): void {
    for (const socket of this.sockets) socket.close(code, 'fake drop');
  }

  /** Sends op 7 RECONNECT, as Discord does before moving a session: the bot reconnects and RESUMEs (missed events replay). */
  reconnect(): void {
    for (const socket of this.ready) this.send(socket, { op: 7, d: null, s: null, t: null });
  }

  /**
   * Sends op 9 INVALID SESSION (not resumable) and forgets the session: the bot must IDENTIFY again, and what is
   * dispatched until then is lost (a new session starts with an empty history), as on Discord.
   */
  invalidate(): void {
    this.invalidations += 1;
    this.sessionId = '';
    for (const socket of this.ready) this.send(socket, { op: 9, d: false, s: null, t: null });
    this.ready.clear();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private onConnection(socket: WebSocket): void {
    this.sockets.add(socket);
    const forget = (): void => {
      this.sockets.delete(socket);
      this.ready.delete(socket);
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

  private identify(socket: WebSocket, data: Record<string, unknown>): void {
    if (data.token !== this.hooks.token) {
      socket.close(4004, 'Authentication failed');
      return;
    }
    this.identifies += 1;
    this.sessionCounter += 1;
    this.sessionId = `fake-session-${this.sessionCounter}`;
    this.history.length = 0;
    const guild = this.hooks.guildCreate();
    this.readyAt = performance.now();
    this.dispatchTo(socket, 'READY', {
      v: 10,
      user: this.hooks.botUser,
      guilds: [{ id: guild.id, unavailable: true }],
      session_id: this.sessionId,
      resume_gateway_url: this.hooks.url(),
      shard: [0, 1],
      application: { id: this.hooks.applicationId, flags: 0 },
    });
    for (const early of this.held.splice(0)) this.dispatchTo(socket, early.t, early.d);
    this.dispatchTo(socket, 'GUILD_CREATE', guild);
    this.ready.add(socket);
  }

  private resume(socket: WebSocket, data: Record<string, unknown>): void {
    if (data.token !== this.hooks.token || data.session_id !== this.sessionId || this.sessionId === '') {
      this.invalidations += 1;
      this.send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    this.resumes += 1;
    const after = typeof data.seq === 'number' ? data.seq : 0;
    for (const frame of this.history) if (frame.s > after) this.send(socket, { op: 0, ...frame });
    this.seq += 1;
    this.send(socket, { op: 0, s: this.seq, t: 'RESUMED', d: {} });
    this.ready.add(socket);
  }

  private dispatchTo(socket: WebSocket, t: string, d: unknown): void {
    this.seq += 1;
    const frame: Dispatch = { s: this.seq, t, d };
    this.history.push(frame);
    this.send(socket, { op: 0, ...frame });
  }

  private send(socket: WebSocket, payload: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(payload));
  }
}
