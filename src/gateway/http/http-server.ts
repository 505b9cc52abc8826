/** Runs the HTTP app on a Node server with graceful shutdown (stop accepting, finish in-flight, close). */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';

export interface RunningHttpServer {
  /** `http://host:port` actually bound. */
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests (up to `graceMs`), then closes remaining sockets. */
  close(graceMs?: number): Promise<void>;
}

/** Serves `app` (every route, notify included, is answered by Hono). */
export async function startHttpServer(app: Hono, host: string, port: number): Promise<RunningHttpServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const created = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(created as Server)) as Server;
    created.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    close: (graceMs = 5000) => closeServer(server, graceMs),
  };
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Purpose: timeout (connections still open after the grace are closed).
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
