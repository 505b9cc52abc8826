/** A stand-in channel gateway: answers POST /v1/api/notify, verifies the bearer token and records each request. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyBearer } from '../../src/gateway/http/auth.js';

export interface RecordedNotify {
  path: string;
  body: Record<string, unknown>;
  /** The `Idempotency-Key` header, when sent. */
  idempotencyKey?: string;
  /** The token's subject and scopes when it verified; undefined when it did not. */
  principal?: { subject: string; scopes: string[] };
}

export interface FakeNotifyGateway {
  url: string;
  readonly requests: RecordedNotify[];
  /** What the next requests get: `sent` (default), an HTTP status, or 200 without any sent result. */
  respondWith(mode: 'sent' | 'not-sent' | number): void;
  close(): Promise<void>;
}

export async function startFakeNotifyGateway(jwt: { secret: string; audience: string }): Promise<FakeNotifyGateway> {
  const requests: RecordedNotify[] = [];
  let mode: 'sent' | 'not-sent' | number = 'sent';
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
        const principal = await verifyBearer(request.headers.authorization, jwt).catch(() => undefined);
        const key = request.headers['idempotency-key'];
        requests.push({
          path: request.url ?? '',
          body,
          ...(typeof key === 'string' ? { idempotencyKey: key } : {}),
          ...(principal ? { principal: { subject: principal.subject, scopes: [...principal.scopes] } } : {}),
        });
        const status = typeof mode === 'number' ? mode : principal ? 200 : 401;
        const results =
          mode === 'sent' && principal
            ? [{ channel_type: 'discord', channel_id: '1', status: 'sent', message_id: '9' }]
            : [];
        response
          .writeHead(status, { 'content-type': 'application/json' })
          .end(JSON.stringify(status === 200 ? { results } : { error: 'nope' }));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith: (next) => {
      mode = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
