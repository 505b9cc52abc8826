/**
 * PostgreSQL LISTEN on `sandpiper_cluster` over a connection taken from knex's pool for good; after an error the
 * connection is dropped and a new one listens (a lost notification only delays: every instance also polls).
 */
import type { Knex } from 'knex';
import { HANDOFF_CHANNEL } from './handoff-store.js';

const RETRY_MS = 1000;

interface PgNotification {
  channel: string;
  payload?: string;
}

interface PgConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): unknown;
  removeAllListeners(event?: string): unknown;
}

interface PoolClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

export async function listenForHandoffs(
  knex: Knex,
  onWake: (target: string, id: string) => void,
  onError: (error: unknown) => void,
): Promise<() => Promise<void>> {
  const client = knex.client as PoolClient;
  let closed = false;
  let current: PgConnection | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const connection = await client.acquireConnection();
    connection.on('notification', (message) => {
      if (message.channel !== HANDOFF_CHANNEL || message.payload === undefined) return;
      const [target, id] = message.payload.split(' ');
      if (target !== undefined && id !== undefined) onWake(target, id);
    });
    const lost = (error?: unknown): void => {
      connection.removeAllListeners();
      if (current === connection) current = undefined;
      if (closed) return;
      onError(error ?? new Error('the LISTEN connection ended'));
      // The connection already failed (reported through onError above); releasing it is best effort.
      void client.releaseConnection(connection).catch(() => undefined);
      scheduleRetry();
    };
    connection.on('error', lost);
    connection.on('end', lost);
    await connection.query(`LISTEN ${HANDOFF_CHANNEL}`);
    current = connection;
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
    const connection = current;
    current = undefined;
    if (!connection) return;
    connection.removeAllListeners();
    // Closing: a connection that cannot UNLISTEN or be released is dropped by the pool; nothing else depends on it.
    await connection.query(`UNLISTEN ${HANDOFF_CHANNEL}`).catch(() => undefined);
    await client.releaseConnection(connection).catch(() => undefined);
  };
}
