/**
 * The fake Slack's Socket Mode side, as Slack runs it for an app with several instances: every `apps.connections.open`
 * hands out a new WebSocket URL, several connections of one app token are open at once, and each envelope goes to ONE
 * open connection (round-robin, or seeded random). An `events_api` envelope that is not acknowledged within 3 s is sent
 * again with `retry_attempt` + 1 and `retry_reason: "timeout"`, to another open connection when there is one; an
 * interactive or slash-command envelope is never retried (Slack shows the user an error instead): it is `expired`.
 */
import { randomUUID } from 'node:crypto';
import type { WebSocket } from 'ws';
import { APP_ID } from './fake-slack-state.js';

export interface Envelope {
  envelope_id: string;
  type: string;
  accepts_response_payload: boolean;
  retry_attempt: number;
  retry_reason: string;
  payload: Record<string, unknown>;
}

/** One Socket Mode connection, numbered from 1 in the order they were opened. */
interface Connection {
  id: number;
  ws: WebSocket;
  /** Acks arriving here are thrown away (a hung or cut-off instance). */
  dropAcks: boolean;
}

/** One envelope sent on one connection. */
export interface Delivery {
  envelopeId: string;
  type: string;
  connection: number;
  retryAttempt: number;
  retryReason: string;
}

/** How the fake picks the connection of a new envelope. */
export type Distribution = 'round-robin' | { seed: number };

/** Slack's acknowledgement deadline. */
export const ACK_TIMEOUT_MS = 3_000;
/** Slack retries an event three times, then gives up. */
const MAX_RETRIES = 3;

export class FakeSocketMode {
  /** envelope_id → the ack payload the app sent back (the first one; late ones too, see `lateAcks`). */
  readonly acks = new Map<string, unknown>();
  /** envelope_id → the connection the first ack came on. */
  readonly ackedOn = new Map<string, number>();
  /** Every envelope sent, in order, with its connection and attempt. */
  readonly deliveries: Delivery[] = [];
  /** Interactive and slash-command envelopes nobody acknowledged within the deadline (the user saw an error). */
  readonly expired: string[] = [];
  /** Every ack received (dropped ones aside): which connection, and whether a deadline was still pending. */
  readonly ackLog: { envelopeId: string; connection: number; late: boolean }[] = [];
  /** Acks that came with no deadline pending: too late (Slack had retried or failed the envelope), or a second ack. */
  readonly lateAcks: string[] = [];
  /** Acks thrown away on connections set to drop them. */
  droppedAcks = 0;
  /** Socket Mode connections opened so far (reconnects add one). */
  connections = 0;
  /** When on, events that find no connection are kept and sent on the next one (else they are lost). */
  retries = false;
  /** Events that reached no app and were not kept for a retry. */
  lost = 0;
  /** Envelopes sent again (retries, redeliveries). */
  retried = 0;
  /** The acknowledgement deadline (Slack's 3 s). */
  ackTimeoutMs = ACK_TIMEOUT_MS;
  /** While set, first deliveries go to this connection when it is open (tests pick who gets an envelope). */
  steer: number | undefined;
  private readonly envelopes = new Map<string, Envelope>();
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  private readonly unsent: Envelope[] = [];
  private readonly live: Connection[] = [];
  private cursor = 0;
  private random: (() => number) | undefined;

  /** Round-robin (the default, deterministic) or seeded random, like Slack's spread over an app's connections. */
  distribute(distribution: Distribution): void {
    this.random = distribution === 'round-robin' ? undefined : mulberry32(distribution.seed);
  }

  /** Open connections (the ones the fake delivers to). */
  get connected(): number {
    return this.live.length;
  }

  /** Ids of the open connections, oldest first. */
  openConnections(): number[] {
    return this.live.map((connection) => connection.id);
  }

  /** The connections an envelope was sent to, in order. */
  connectionsOf(envelopeId: string): number[] {
    return this.deliveries
      .filter((delivery) => delivery.envelopeId === envelopeId)
      .map((delivery) => delivery.connection);
  }

  /** Throws away (or, with `false`, accepts again) the acks of one connection. */
  dropAcks(connection: number, drop = true): void {
    const found = this.live.find((entry) => entry.id === connection);
    if (!found) throw new Error(`fake slack: no open Socket Mode connection ${connection}`);
    found.dropAcks = drop;
  }

  /** A new WebSocket after the handshake: says hello and sends what waited for a connection. */
  open(ws: WebSocket): void {
    this.connections += 1;
    const connection: Connection = { id: this.connections, ws, dropAcks: false };
    this.live.push(connection);
    ws.on('close', () => this.forget(connection));
    ws.on('message', (data: Buffer) => this.onFrame(connection, data));
    const hello = {
      type: 'hello',
      num_connections: this.live.length,
      debug_info: { host: 'fake-applink', approximate_connection_time: 3600 },
      connection_info: { app_id: APP_ID },
    };
    ws.send(JSON.stringify(hello));
    for (const envelope of this.unsent.splice(0)) this.retry(envelope, 'timeout', connection);
  }

  /**
   * Sends one envelope to one open connection; resolves with its envelope id. An `events_api` envelope that finds no
   * connection is lost, or, with `retries` on, sent on the next connection; other envelopes need a connection (a click
   * while down fails at Slack).
   */
  send(type: string, payload: Record<string, unknown>, acceptsResponsePayload = type !== 'events_api'): string {
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type,
      accepts_response_payload: acceptsResponsePayload,
      retry_attempt: 0,
      retry_reason: '',
      payload,
    };
    this.envelopes.set(envelope.envelope_id, envelope);
    const target = this.pick(envelope);
    if (target) {
      this.deliver(envelope, target);
      return envelope.envelope_id;
    }
    if (type !== 'events_api') throw new Error('fake slack: no Socket Mode connection');
    this.noConnection(envelope);
    return envelope.envelope_id;
  }

  /** Sends an envelope again with the next `retry_attempt`, as Slack does when an acknowledgement came late or never. */
  redeliver(envelopeId: string, reason = 'timeout'): void {
    const envelope = this.envelopes.get(envelopeId);
    const target = envelope && this.pick(envelope);
    if (!envelope || !target) throw new Error('fake slack: nothing to redeliver (unknown envelope or no connection)');
    this.retry(envelope, reason, target);
  }

  /** Cuts every connection without a goodbye (a network drop); the clients reconnect by themselves. */
  dropAll(): void {
    for (const connection of this.live.splice(0)) connection.ws.terminate();
  }

  /**
   * Asks connections to reconnect (`disconnect`, reason `refresh_requested`), as Slack does before rotating one: all of
   * them, or only `connection`. Slack sends nothing more on a connection it asked to refresh.
   */
  requestReconnect(connection?: number): void {
    const asked = this.live.filter((entry) => connection === undefined || entry.id === connection);
    if (connection !== undefined && asked.length === 0)
      throw new Error(`fake slack: no open Socket Mode connection ${String(connection)}`);
    for (const entry of asked) {
      entry.ws.send(
        JSON.stringify({ type: 'disconnect', reason: 'refresh_requested', debug_info: { host: 'fake-applink' } }),
      );
      this.forget(entry);
    }
  }

  /** The open WebSockets (for the server's pings and the shutdown). */
  sockets(): WebSocket[] {
    return this.live.map((connection) => connection.ws);
  }

  close(): void {
    for (const timer of this.deadlines.values()) clearTimeout(timer);
    this.deadlines.clear();
    for (const connection of this.live.splice(0)) connection.ws.terminate();
  }

  private forget(connection: Connection): void {
    const index = this.live.indexOf(connection);
    if (index !== -1) this.live.splice(index, 1);
  }

  /** The connection for an envelope: the steered one, else one that has not had it yet (for a retry), by the spread. */
  private pick(envelope: Envelope): Connection | undefined {
    const open = this.live.filter((connection) => connection.ws.readyState === connection.ws.OPEN);
    if (open.length === 0) return undefined;
    if (envelope.retry_attempt === 0 && this.steer !== undefined) {
      const steered = open.find((connection) => connection.id === this.steer);
      if (steered) return steered;
    }
    const had = new Set(this.connectionsOf(envelope.envelope_id));
    const fresh = open.filter((connection) => !had.has(connection.id));
    const choices = fresh.length > 0 ? fresh : open;
    const index = this.random ? Math.floor(this.random() * choices.length) : this.cursor++ % choices.length;
    return choices[index];
  }

  private deliver(envelope: Envelope, connection: Connection): void {
    this.deliveries.push({
      envelopeId: envelope.envelope_id,
      type: envelope.type,
      connection: connection.id,
      retryAttempt: envelope.retry_attempt,
      retryReason: envelope.retry_reason,
    });
    connection.ws.send(JSON.stringify(envelope));
    const timer = setTimeout(() => this.onDeadline(envelope), this.ackTimeoutMs);
    timer.unref();
    this.deadlines.set(envelope.envelope_id, timer);
  }

  private retry(envelope: Envelope, reason: string, connection: Connection): void {
    clearTimeout(this.deadlines.get(envelope.envelope_id));
    envelope.retry_attempt += 1;
    envelope.retry_reason = reason;
    this.retried += 1;
    this.deliver(envelope, connection);
  }

  /** No ack in time: an event is retried elsewhere (at most three times); a click or command has failed for the user. */
  private onDeadline(envelope: Envelope): void {
    this.deadlines.delete(envelope.envelope_id);
    if (this.acks.has(envelope.envelope_id)) return;
    if (envelope.type !== 'events_api') {
      this.expired.push(envelope.envelope_id);
      return;
    }
    if (envelope.retry_attempt >= MAX_RETRIES) return;
    const target = this.pick(envelope);
    if (target) this.retry(envelope, 'timeout', target);
    else this.noConnection(envelope);
  }

  private noConnection(envelope: Envelope): void {
    if (this.retries) this.unsent.push(envelope);
    else this.lost += 1;
  }

  private onFrame(connection: Connection, data: Buffer): void {
    let frame: { envelope_id?: string; payload?: unknown };
    try {
      frame = JSON.parse(data.toString('utf8')) as { envelope_id?: string; payload?: unknown };
    } catch {
      return;
    }
    const id = frame.envelope_id;
    if (!id) return;
    if (connection.dropAcks) {
      this.droppedAcks += 1;
      return;
    }
    // No deadline pending: past it (an event retried, a click failed for the user) or acknowledged already elsewhere.
    const waiting = this.deadlines.has(id);
    this.ackLog.push({ envelopeId: id, connection: connection.id, late: !waiting });
    if (!waiting) this.lateAcks.push(id);
    clearTimeout(this.deadlines.get(id));
    this.deadlines.delete(id);
    if (this.acks.has(id)) return;
    this.acks.set(id, frame.payload ?? {});
    this.ackedOn.set(id, connection.id);
  }
}

/** A small seeded PRNG (mulberry32): the same seed gives the same spread. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
