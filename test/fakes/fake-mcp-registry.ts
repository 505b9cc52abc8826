/** A fake of the official MCP registry's `GET /v0/servers?search=&limit=` on 127.0.0.1 (v0 shape: `{server, _meta}` items). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRegistry {
  url: string;
  /** Query strings received, in order. */
  readonly queries: string[];
  close(): Promise<void>;
}

export async function startFakeMcpRegistry(servers: ReadonlyArray<Record<string, unknown>>): Promise<FakeRegistry> {
  const queries: string[] = [];
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry');
    if (req.method !== 'GET' || url.pathname !== '/v0/servers') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    queries.push(url.search);
    const search = (url.searchParams.get('search') ?? '').toLowerCase();
    const limit = Number(url.searchParams.get('limit') ?? '30');
    const found = servers
      .filter((server) =>
        `${String(server['name'])} ${String(server['description'] ?? '')}`.toLowerCase().includes(search),
      )
      .slice(0, limit);
    const body = {
      servers: found.map((server) => ({
        server,
        _meta: { 'io.modelcontextprotocol.registry/official': { status: 'active' } },
      })),
      metadata: { count: found.length },
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
