import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { createWebSearchHandler } from './web_search.js';

describe('web_search', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  let server: http.Server;
  let endpoint = '';
  const requests: { authorization: string | undefined; body: Record<string, unknown> }[] = [];
  before(async () => {
    workspace = await createTempWorkspace();
    server = http.createServer((request, response) => {
      let text = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (text += chunk));
      request.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        requests.push({ authorization: request.headers.authorization, body });
        if (request.headers.authorization !== 'Bearer tvly-test') {
          response.writeHead(401, { 'content-type': 'application/json' }).end('{"detail":"bad key"}');
          return;
        }
        const results =
          body['query'] === 'nothing'
            ? []
            : [
                {
                  title: 'Node.js 20',
                  url: 'https://nodejs.org/en/blog/20',
                  content: 'Node.js 20 was released in April 2023.',
                  score: 0.9,
                },
                { title: 'Release schedule', url: 'https://nodejs.org/release', content: 'LTS lines...', score: 0.5 },
              ];
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ answer: body['query'] === 'nothing' ? null : 'April 2023', results }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/search`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await workspace.remove();
  });

  it('explains that a key is needed when none is configured', async () => {
    const handler = createWebSearchHandler({ endpoint });
    const prepared = await handler.prepare({ query: 'x' }, createToolContext(workspace.directory));
    assert.match(String(prepared.error), /not configured.*tools\.tavily_api_key/);
    assert.equal(prepared.needsApproval, false);
    assert.equal((await handler.execute({ query: 'x' }, createToolContext(workspace.directory))).isError, true);
  });

  it('returns the answer and numbered, linked results', async () => {
    const handler = createWebSearchHandler({ endpoint, apiKey: 'tvly-test' });
    const prepared = await handler.prepare({ query: 'node 20 release' }, createToolContext(workspace.directory));
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'web_search');
    const result = await handler.execute(
      { query: 'node 20 release', max_results: 50, topic: 'weather' },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, false);
    assert.equal(
      result.output,
      'Answer: April 2023\n\n1. [Node.js 20](https://nodejs.org/en/blog/20)\n   Node.js 20 was released in April 2023.\n2. [Release schedule](https://nodejs.org/release)\n   LTS lines...',
    );
    const last = requests.at(-1);
    assert.deepEqual(last?.body, { query: 'node 20 release', max_results: 20, topic: 'general', include_answer: true });
    assert.equal(last?.authorization, 'Bearer tvly-test');
  });

  it('says when nothing was found, and reports API failures without the key', async () => {
    const handler = createWebSearchHandler({ endpoint, apiKey: 'tvly-test' });
    assert.deepEqual(await handler.execute({ query: 'nothing' }, createToolContext(workspace.directory)), {
      output: "No results for 'nothing'.",
      isError: false,
    });
    const wrongKey = await createWebSearchHandler({ endpoint, apiKey: 'tvly-wrong' }).execute(
      { query: 'x' },
      createToolContext(workspace.directory),
    );
    assert.deepEqual(wrongKey, { output: 'Tavily search failed: HTTP 401', isError: true });
  });
});
