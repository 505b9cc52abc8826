/**
 * Benchmark child: a bare node:http server doing the notify route's work without Sandpiper: read the body, verify
 * the HS256 JWT with jose (key imported once), parse the JSON, look the user up in the same SQLite file (sqlite3)
 * for a username target (cached 5 s like Sandpiper's), answer the same JSON. No framework, no metrics, no logging.
 */
import { webcrypto } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import sqlite3 from 'sqlite3';

const { databaseFile, secret } = JSON.parse(process.argv[2] ?? '{}') as { databaseFile: string; secret: string };
const key = await webcrypto.subtle.importKey(
  'raw',
  new TextEncoder().encode(secret),
  { name: 'HMAC', hash: 'SHA-256' },
  false,
  ['verify'],
);
const db = new sqlite3.Database(databaseFile);

/** Same as Sandpiper's route: a username's lookup is remembered for 5 s (hits and misses), so both servers do the same I/O. */
const users = new Map<string, { row: unknown; at: number }>();
async function findUser(username: string): Promise<unknown> {
  const hit = users.get(username);
  if (hit !== undefined && Date.now() - hit.at < 5_000) return hit.row;
  const row = await new Promise((resolve, reject) =>
    db.get('SELECT user_id FROM users WHERE username = ?', [username], (error, found) =>
      error ? reject(error) : resolve(found),
    ),
  );
  users.set(username, { row, at: Date.now() });
  return row;
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      try {
        await jwtVerify(token, key, {
          algorithms: ['HS256'],
          audience: 'turnstone-channel',
          clockTolerance: 30,
          requiredClaims: ['exp'],
        });
      } catch {
        return send(401, { error: 'Unauthorized' });
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        target: { username?: string; channel_type?: string; channel_id?: string };
        message: string;
      };
      if (body.target.username !== undefined) {
        if (!(await findUser(body.target.username)))
          return send(404, { error: 'target not found or has no linked channels' });
      }
      send(200, {
        results: [{ channel_type: body.target.channel_type, channel_id: body.target.channel_id, status: 'no_adapter' }],
      });
    })();
  });
});
server.listen(0, '127.0.0.1', () =>
  process.send?.({ type: 'ready', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
);
process.on('disconnect', () => process.exit(0));
process.on('message', () => server.close(() => db.close(() => process.exit(0))));
