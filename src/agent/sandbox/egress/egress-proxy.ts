/**
 * The egress proxy a sandboxed call reaches through its socket: CONNECT (any TCP, usually TLS) and absolute-form
 * HTTP requests. Every destination is decided first (`decide`), then connected to the checked address only.
 */
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { parseDestination, type EgressDestination } from './egress-hosts.js';

export type EgressVerdict = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

export interface EgressProxyOptions {
  /** Where it listens (a Unix socket in a folder only the gateway can open). */
  socketPath: string;
  /** Decides one destination: refused, or allowed with the checked addresses to connect to. */
  decide(destination: EgressDestination): Promise<EgressVerdict>;
}

export interface EgressProxy {
  close(): Promise<void>;
}

const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/** Starts the proxy; resolves once it listens. */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const sockets = new Set<Duplex>();
  const server = http.createServer((request, response) => void forwardRequest(request, response, options));
  server.on(
    'connect',
    (request: http.IncomingMessage, client: Duplex, head: Buffer) => void tunnel(request, client, head, options),
  );
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** CONNECT host:port → 200 and a byte tunnel to the checked address, or 403 with the reason. */
async function tunnel(
  request: http.IncomingMessage,
  client: Duplex,
  head: Buffer,
  options: EgressProxyOptions,
): Promise<void> {
  client.on('error', () => client.destroy());
  const destination = parseDestination(request.url ?? '');
  if (destination === undefined) return refuse(client, 400, 'CONNECT needs host:port');
  const verdict = await options.decide(destination);
  if (!verdict.ok) return refuse(client, 403, verdict.reason);
  const upstream = connectChecked(verdict.addresses, destination.port);
  let established = false;
  upstream.once('connect', () => {
    established = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  // Before the tunnel stands the client hears why; inside it, only the connection drops.
  upstream.once('error', (error: NodeJS.ErrnoException) =>
    established ? client.destroy() : refuse(client, 502, `cannot connect (${error.code ?? 'error'})`),
  );
  client.once('close', () => upstream.destroy());
}

/** An absolute-form `GET http://host/path` (plain HTTP only; HTTPS goes through CONNECT). */
async function forwardRequest(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: EgressProxyOptions,
): Promise<void> {
  let url: URL;
  try {
    url = new URL(request.url ?? '');
  } catch {
    return reply(response, 400, 'the proxy needs an absolute http:// URL');
  }
  if (url.protocol !== 'http:') return reply(response, 400, 'the proxy forwards http:// URLs; use CONNECT for https');
  const destination = parseDestination(url.host, 80);
  if (destination === undefined) return reply(response, 400, 'bad host');
  const verdict = await options.decide(destination);
  if (!verdict.ok) return reply(response, 403, verdict.reason);
  const headers = { ...request.headers };
  for (const name of HOP_BY_HOP) delete headers[name];
  const upstream = http.request({
    method: request.method,
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host, connection: 'close' },
    createConnection: () => connectChecked(verdict.addresses, destination.port),
  });
  upstream.on('response', (answer) => {
    const out = { ...answer.headers };
    for (const name of HOP_BY_HOP) delete out[name];
    response.writeHead(answer.statusCode ?? 502, out);
    answer.pipe(response);
  });
  upstream.on('error', (error: NodeJS.ErrnoException) => {
    if (!response.headersSent) reply(response, 502, `cannot connect (${error.code ?? 'error'})`);
    else response.destroy();
  });
  response.on('close', () => upstream.destroy());
  request.pipe(upstream);
}

/** Connects to the first checked address (never resolving the name again). */
function connectChecked(addresses: readonly LookupAddress[], port: number): net.Socket {
  const first = addresses[0] as LookupAddress;
  return net.connect({ host: first.address, port, family: first.family });
}

function refuse(client: Duplex, status: number, reason: string): void {
  if (client.destroyed) return;
  const body = `${reason}\n`;
  client.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function reply(response: http.ServerResponse, status: number, reason: string): void {
  response.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(`${reason}\n`);
}
