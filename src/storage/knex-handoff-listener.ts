/**
 * PostgreSQL LISTEN on `sandpiper_cluster` over a `pg` client of its own, outside knex's pool (a LISTEN needs one
 * session for good); after an error the client is dropped and a new one listens (a lost notification only delays:
 * every instance also polls).
 */
import type { Knex } from 'knex';
import type pg from 'pg';
import { HANDOFF_CHANNEL } from './handoff-store.js';
import { postgresUrlOf } from './db.js';

const RETRY_MS = 1000;

/**
 * Ends a LISTEN client that is being dropped. A client dropped after a failure is already explained (a failed connect
 * is thrown to the caller, a lost connection goes to `onError`), so its errors while it ends add nothing and `report`
 * is left out. A healthy client closed on request passes `report`: a failure to end it is news nobody else has.
 */
async function drop(client: pg.Client, report?: (error: unknown) => void): Promise<void> {
  client.removeAllListeners();
  // A socket error while ending also fails `end()`, which is where it is reported (once).
  client.on('error', () => undefined);
  await client.end().catch((error: unknown) => report?.(error));
}

export async function listenForHandoffs(
  knex: Knex,
  onWake: (target: string, id: string) => void,
  onError: (error: unknown) => void,
): Promise<() => Promise<void>> {
  const url = postgresUrlOf(knex);
  if (url === undefined) throw new Error('the handoff LISTEN needs a PostgreSQL store opened by createKnex');
  // Loaded here, not at start: a SQLite gateway never needs the driver (about 17 MB of memory).
  const { Client } = (await import('pg')).default;
  let closed = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const client = new Client({ connectionString: url });
    client.on('notification', (message) => {
      if (message.channel !== HANDOFF_CHANNEL || message.payload === undefined) return;
      const [target, id] = message.payload.split(' ');
      if (target !== undefined && id !== undefined) onWake(target, id);
    });
    const lost = (error?: unknown): void => {
      void drop(client);
      if (current === client) current = undefined;
      if (closed) return;
      onError(error ?? new Error('the LISTEN connection ended'));
      scheduleRetry();
    };
    try {
      await client.connect();
      await client.query(`LISTEN ${HANDOFF_CHANNEL}`);
    } catch (error) {
      await drop(client);
      throw error;
    }
    client.on('error', lost);
    client.on('end', () => lost());
    current = client;
  };
  const scheduleRetry = (): void => {
    // Purpose: backoff (the LISTEN connection is retried after RETRY_MS).
    retry = setTimeout(
      () => void connect().catch((error: unknown) => (onError(error), closed ? undefined : scheduleRetry())),
      RETRY_MS,
    );
    retry.unref();
  };
  await connect();
  return async () => {
    closed = true;
    clearTimeout(retry);
    const client = current;
    current = undefined;
    if (client) await drop(client, onError);
  };
}
