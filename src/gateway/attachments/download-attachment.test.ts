import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { downloadAttachment } from './download-attachment.js';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

async function listen(
  host: string,
  handler: (path: string, res: ServerResponse) => void,
  seen: Seen[],
): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    handler(req.url ?? '', res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

describe('downloadAttachment', () => {
  const platformSeen: Seen[] = [];
  const foreignSeen: Seen[] = [];
  let platform: { server: Server; origin: string };
  let foreign: { server: Server; origin: string };
  const limits = { maxBytes: 1000, signal: new AbortController().signal };
  const access = (): { origins: string[]; headers: Record<string, string> } => ({
    origins: [platform.origin],
    headers: { authorization: 'Bearer xoxb-secret' },
  });

  before(async () => {
    foreign = await listen(
      'localhost',
      (_path, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('stolen'),
      foreignSeen,
    );
    platform = await listen(
      '127.0.0.1',
      (path, res) => {
        if (path === '/ok')
          return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('hello');
        if (path === '/hop') return void res.writeHead(302, { location: '/ok' }).end();
        if (path === '/away') return void res.writeHead(302, { location: `${foreign.origin}/x` }).end();
        if (path === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
        if (path === '/long') return void res.writeHead(200, { 'content-length': '5000' }).end('x'.repeat(5000));
        if (path === '/chunked') {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          for (let i = 0; i < 20; i++) res.write('y'.repeat(100));
          return void res.end();
        }
        res.writeHead(404).end();
      },
      platformSeen,
    );
  });
  after(() => {
    platform.server.closeAllConnections();
    foreign.server.closeAllConnections();
    platform.server.close();
    foreign.server.close();
  });

  it('downloads from an allowed origin with the platform headers, following redirects on that origin', async () => {
    const result = await downloadAttachment({ name: 'a.txt', url: `${platform.origin}/hop` }, access(), limits);
    assert.ok(result.ok);
    assert.equal(result.value.bytes.toString(), 'hello');
    assert.equal(result.value.contentType, 'text/plain');
    assert.ok(
      platformSeen
        .filter((seen) => seen.path === '/ok')
        .every((seen) => seen.headers.authorization === 'Bearer xoxb-secret'),
    );
  });

  it('never contacts another host: neither a URL on it nor a redirect to it', async () => {
    const direct = await downloadAttachment({ name: 'x.png', url: `${foreign.origin}/x` }, access(), limits);
    assert.deepEqual(direct, {
      ok: false,
      error: `it is not hosted by the platform (${new URL(foreign.origin).host}); not downloaded`,
    });
    const redirected = await downloadAttachment({ name: 'x.png', url: `${platform.origin}/away` }, access(), limits);
    assert.equal(redirected.ok, false);
    assert.match(redirected.ok ? '' : redirected.error, /redirected to another host/);
    assert.deepEqual(foreignSeen, [], 'the token never reached the other host');
  });

  it('refuses by announced size, by Content-Length and by the bytes actually sent', async () => {
    const announced = await downloadAttachment(
      { name: 'big', url: `${platform.origin}/ok`, size: 2_000_000 },
      access(),
      limits,
    );
    assert.match(announced.ok ? '' : announced.error, /^too large \(1\.9 MB; the limit is 0\.0 MB\)$/);
    const declared = await downloadAttachment(
      { name: 'big', url: `${platform.origin}/long`, size: 10 },
      access(),
      limits,
    );
    assert.match(declared.ok ? '' : declared.error, /^too large/);
    const streamed = await downloadAttachment({ name: 'big', url: `${platform.origin}/chunked` }, access(), limits);
    assert.match(streamed.ok ? '' : streamed.error, /^too large/);
  });

  it('reports HTTP errors, redirect loops and missing URLs in words', async () => {
    const missing = await downloadAttachment({ name: 'gone', url: `${platform.origin}/gone` }, access(), limits);
    assert.deepEqual(missing, { ok: false, error: 'the file host answered HTTP 404' });
    const loop = await downloadAttachment({ name: 'loop', url: `${platform.origin}/loop` }, access(), limits);
    assert.deepEqual(loop, { ok: false, error: 'the file host redirected too many times' });
    const none = await downloadAttachment({ name: 'hidden', url: '' }, access(), limits);
    assert.deepEqual(none, { ok: false, error: 'the platform gave no download address for it' });
  });
});
