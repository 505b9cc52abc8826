/** `doctor` on per-user MCP OAuth: the key, `public_url`, and whether the callback answers as Sandpiper's. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { configSchema } from '../config/index.js';
import { startHttpServer } from '../gateway/http/http-server.js';
import { createOAuthCallbackRoutes } from '../gateway/http/routes/oauth-callback.js';
import { checkMcpOAuth } from './mcp-oauth-check.js';

function configWith(
  publicUrl: string | undefined,
  tokenKey: string | undefined,
): ReturnType<typeof configSchema.parse> {
  return configSchema.parse({
    gateway: publicUrl === undefined ? {} : { public_url: publicUrl },
    mcp: {
      servers: { tracker: { type: 'http', url: 'https://mcp.example.test/mcp', auth: 'oauth' } },
      ...(tokenKey ? { token_key: tokenKey } : {}),
    },
  });
}

describe('doctor: MCP OAuth', () => {
  it('refuses a config with an OAuth server and no public_url, naming the key', () => {
    const parsed = configSchema.safeParse({
      mcp: { servers: { tracker: { type: 'http', url: 'https://mcp.example.test/mcp', auth: 'oauth' } } },
    });
    assert.equal(parsed.success, false);
    assert.match(JSON.stringify(parsed.error?.issues), /gateway\.public_url|public_url/);
  });

  it('passes when the callback answers as Sandpiper, fails for another server, and names a missing key', async () => {
    const routes = createOAuthCallbackRoutes({
      complete: () => Promise.resolve({ ok: false, status: 400, message: 'unknown' }),
      decline: () => Promise.resolve(),
    });
    const sandpiper = await startHttpServer(new Hono().route('/', routes), '127.0.0.1', 0);
    const other = await startHttpServer(
      new Hono().get('*', (context) => context.text('hello', 200)),
      '127.0.0.1',
      0,
    );
    try {
      const good = await checkMcpOAuth(configWith(sandpiper.url, 'a-token-key-0123456789'));
      assert.deepEqual(
        good.map((result) => result.status),
        ['ok', 'ok', 'ok'],
      );
      const wrong = await checkMcpOAuth(configWith(other.url, undefined));
      assert.deepEqual(
        wrong.map((result) => [result.name, result.status]),
        [
          ['mcp oauth token key', 'fail'],
          ['mcp oauth public_url', 'ok'],
          ['mcp oauth callback', 'fail'],
        ],
      );
    } finally {
      await sandpiper.close();
      await other.close();
    }
  });

  it('warns for a public_url that is not https, and when the callback cannot be reached', async () => {
    const results = await checkMcpOAuth(configWith('http://sandpiper.invalid', 'a-token-key-0123456789'));
    assert.deepEqual(
      results.map((result) => result.status),
      ['ok', 'warn', 'warn'],
    );
  });
});
