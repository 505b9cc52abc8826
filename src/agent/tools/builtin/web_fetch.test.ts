import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { publicAddressPolicy } from '../ssrf-guard.js';
import { createWebFetchHandler, webFetchHandler } from './web_fetch.js';

describe('web_fetch', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  let server: http.Server;
  let base = '';
  let port = 0;
  before(async () => {
    workspace = await createTempWorkspace();
    server = http.createServer((request, response) => {
      if (request.url === '/page') {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(
          '<html><head><style>p{}</style><script>var x=1;</script></head><body><h1>Opening hours</h1><p>We open at <b>9&nbsp;am</b> &amp; close at 5 pm.</p></body></html>',
        );
      } else if (request.url === '/to-page') {
        response.writeHead(302, { location: '/page' }).end();
      } else if (request.url === '/to-metadata') {
        response.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (request.url === '/to-loopback6') {
        response.writeHead(301, { location: `http://[::1]:${port}/page` }).end();
      } else if (request.url === '/loop') {
        response.writeHead(302, { location: '/loop' }).end();
      } else {
        response.writeHead(404).end('nope');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await workspace.remove();
  });

  /** Allows exactly the local test server's address; everything else goes through the public-only policy. */
  const localOnly = createWebFetchHandler({
    addressPolicy: (address) => (address === '127.0.0.1' ? undefined : publicAddressPolicy(address)),
  });

  it('needs approval and refuses private, loopback, link-local, unique-local and mapped addresses', async () => {
    const context = createToolContext(workspace.directory);
    const ok = await webFetchHandler.prepare({ url: 'https://example.com/a', question: 'what?' }, context);
    assert.equal(ok.needsApproval, true);
    assert.equal(ok.approvalLabel, 'web_fetch');
    for (const url of [
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/',
      'http://[fc00::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://192.168.1.1/',
      'http://0.0.0.0/',
      'http://[fe80::1]/',
      'http://2130706433/',
    ]) {
      const prepared = await webFetchHandler.prepare({ url }, context);
      assert.equal(prepared.header, '✗ web_fetch: blocked (private network)', url);
      assert.match(String(prepared.error), /^Error: Blocked: URL resolves to private\/internal address/, url);
      const result = await webFetchHandler.execute({ url }, context);
      assert.equal(result.isError, true, url);
    }
    assert.match(
      String((await webFetchHandler.prepare({ url: 'ftp://example.com/x' }, context)).error),
      /must start with http/,
    );
  });

  it('refuses a host name that resolves to a private address at connect time', async () => {
    const result = await webFetchHandler.execute(
      { url: `http://localhost:${port}/page` },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, true);
    assert.match(String(result.output), /Blocked: URL resolves to private\/internal address/);
  });

  it('fetches a page, follows a redirect and converts HTML to text', async () => {
    const result = await localOnly.execute({ url: `${base}/to-page` }, createToolContext(workspace.directory));
    assert.equal(result.isError, false);
    assert.match(String(result.output), /OPENING HOURS|Opening hours/);
    assert.match(String(result.output), /We open at 9\s?am & close at 5 pm\./);
    assert.doesNotMatch(String(result.output), /<b>|var x|p\{\}/);
  });

  it('re-checks every redirect hop', async () => {
    const context = createToolContext(workspace.directory);
    const metadata = await localOnly.execute({ url: `${base}/to-metadata` }, context);
    assert.equal(metadata.isError, true);
    assert.match(String(metadata.output), /Redirect refused: Blocked: .*169\.254\.169\.254/);
    const loopback6 = await localOnly.execute({ url: `${base}/to-loopback6` }, context);
    assert.match(String(loopback6.output), /Redirect refused: Blocked: .*::1/);
    assert.match(String((await localOnly.execute({ url: `${base}/loop` }, context)).output), /more than 5 redirects/);
    assert.deepEqual(await localOnly.execute({ url: `${base}/missing` }, context), {
      output: 'Fetch failed: HTTP 404',
      isError: true,
    });
  });

  it('asks the model to answer the question from the page text', async () => {
    const prompts: string[] = [];
    const context = createToolContext(workspace.directory, {
      askModel: (prompt) => {
        prompts.push(prompt);
        return Promise.resolve('9 am');
      },
    });
    const result = await localOnly.execute({ url: `${base}/page`, question: 'When does it open?' }, context);
    assert.deepEqual(result, { output: '9 am', isError: false });
    assert.match(prompts[0] ?? '', /Question: When does it open\?/);
    assert.match(prompts[0] ?? '', /We open at 9/);
  });

  it('allowPrivateAddresses lets tests reach a local server', async () => {
    const handler = createWebFetchHandler({ allowPrivateAddresses: true });
    const result = await handler.execute(
      { url: `http://localhost:${port}/page` },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, false);
  });
});
