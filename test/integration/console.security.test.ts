/**
 * The operator console's doors over plain HTTP through the real composition root (ADR 0047): nothing without a
 * session, a notify token never signs in, a forged cross-site change is refused, the page refuses framing and inline
 * script, and no secret of the config or the environment appears in a page, an answer or an event.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { mintAdminToken, mintServiceToken } from '../../src/gateway/http/auth.js';
import { startFakeLlmServer } from '../fakes/fake-llm-server.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const NOTIFY_SECRET = 'console-notify-secret-console-notify-secret-1';
const ADMIN_SECRET = 'console-admin-secret-console-admin-secret-xyz';
const MODEL_KEY = 'sk-console-model-key-000000000000';
const SECRETS = [NOTIFY_SECRET, ADMIN_SECRET, MODEL_KEY];

/** Reads server-sent events from `url` until `count` events arrived, then closes the connection; returns their raw text. */
function readEvents(url: string, cookie: string, count: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { cookie }, agent: false }, (response) => {
      assert.equal(response.statusCode, 200);
      assert.match(response.headers['content-type'] ?? '', /text\/event-stream/);
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if ((text.match(/^event: /gm) ?? []).length >= count) {
          request.destroy();
          resolve(text);
        }
      });
      response.on('end', () => resolve(text));
    });
    request.on('error', reject);
  });
}

describe('the console over HTTP', () => {
  let gateway: TestGateway;
  let base: string;
  let cookie: string;
  let csrf: string;
  before(async () => {
    const llm = await startFakeLlmServer();
    gateway = await startTestGateway({
      llm,
      jwtSecret: NOTIFY_SECRET,
      adminSecret: ADMIN_SECRET,
      flags: { 'console.enabled': true, 'models.main.api_key': MODEL_KEY },
    });
    base = gateway.adminUrl as string;
    const token = await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] });
    const signedIn = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    assert.equal(signedIn.status, 200);
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/i);
    assert.match(setCookie, /SameSite=Strict/i);
    assert.match(setCookie, /Expires=/i);
    assert.doesNotMatch(setCookie, /Secure/i, 'plain http on loopback: no Secure flag');
    cookie = setCookie.split(';')[0] as string;
    csrf = ((await signedIn.json()) as { csrf: string }).csrf;
  });
  after(() => gateway?.close());

  it('serves the page with a strict CSP and refuses framing; nothing else without a session', async () => {
    const page = await fetch(`${base}/console`);
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.doesNotMatch(await page.text(), /<script>|\son[a-z]+=/i, 'no inline script in the page');
    for (const path of ['/console/session', '/console/events', '/v1/api/admin/conversations', '/v1/api/admin/grants']) {
      assert.equal((await fetch(`${base}${path}`)).status, 401, path);
    }
    assert.equal((await fetch(`${base}/console/assets/..%2f..%2fpackage.json`)).status, 404);
    const onMain = await fetch(`${gateway.url.replace('0.0.0.0', '127.0.0.1')}/console`);
    assert.equal(onMain.status, 404, 'the console is not on the main listener');
  });

  it('refuses a notify token, a forged or expired session and a cross-site sign-in', async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}/console/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const notifyToken = await mintServiceToken(
      { secret: NOTIFY_SECRET, audience: 'turnstone-channel' },
      { scopes: ['service'] },
    );
    assert.equal((await post({ token: notifyToken })).status, 401);
    const adminToken = await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:read'] });
    assert.equal((await post({ token: adminToken }, { origin: 'https://evil.example' })).status, 403);
    assert.equal((await post({ token: adminToken }, { origin: 'null' })).status, 403);
    const proxied = await post(
      { token: adminToken },
      { origin: 'https://console.example', 'x-forwarded-host': 'console.example' },
    );
    assert.equal(proxied.status, 200, 'behind a TLS proxy the forwarded host is the origin');
    const form = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${adminToken}`,
    });
    assert.equal(form.status, 415);
    const behindTls = await post({ token: adminToken }, { 'x-forwarded-proto': 'https' });
    assert.match(behindTls.headers.get('set-cookie') ?? '', /;\s*Secure/i, 'Secure behind a TLS proxy');
    const readOnly = (behindTls.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const { csrf: readCsrf } = (await behindTls.json()) as { csrf: string };
    const change = await fetch(`${base}/v1/api/admin/policies`, {
      method: 'POST',
      headers: { cookie: readOnly, 'content-type': 'application/json', 'x-csrf-token': readCsrf },
      body: JSON.stringify({ pattern: 'x', action: 'deny' }),
    });
    assert.equal(change.status, 403, 'a read-only token gives a read-only session');
    const forged = `sandpiper_console=${adminToken}`;
    assert.equal(
      (await fetch(`${base}/v1/api/admin/conversations`, { headers: { cookie: forged } })).status,
      401,
      'an admin token is not a session',
    );
  });

  it('refuses a change made with the session cookie but without the CSRF token (a forged cross-site POST)', async () => {
    const body = JSON.stringify({ pattern: 'bash', action: 'deny' });
    const forged = await fetch(`${base}/v1/api/admin/policies`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'text/plain' },
      body,
    });
    assert.equal(forged.status, 403);
    const wrong = await fetch(`${base}/v1/api/admin/policies`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': `${csrf.slice(1)}x` },
      body,
    });
    assert.equal(wrong.status, 403);
    const signOut = await fetch(`${base}/console/signout`, { method: 'POST', headers: { cookie } });
    assert.equal(signOut.status, 403, 'even sign-out needs the CSRF token');
    const policies = await fetch(`${base}/v1/api/admin/policies`, { headers: { cookie } });
    assert.deepEqual(((await policies.json()) as { policies: unknown[] }).policies, [], 'nothing was changed');
    const allowed = await fetch(`${base}/v1/api/admin/policies`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
      body,
    });
    assert.equal(allowed.status, 201);
    const audit = (await (await fetch(`${base}/v1/api/admin/audit`, { headers: { cookie } })).json()) as {
      audit: Array<{ actor: string; action: string }>;
    };
    assert.equal(audit.audit[0]?.actor, 'console:ops', 'a console change is audited under the console session');
  });

  it('decides approvals and revokes grants only with valid input, through the session', async () => {
    const change = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    assert.equal((await change('POST', '/v1/api/admin/approvals/nope/decision', { decision: 'maybe' })).status, 400);
    assert.equal((await change('POST', '/v1/api/admin/approvals/nope/decision', { decision: 'approve' })).status, 404);
    assert.equal(
      (await change('POST', '/v1/api/admin/grants', { scope: 'user', target: 'nobody', tool: 'bash' })).status,
      404,
    );
    assert.equal(
      (
        await change('POST', '/v1/api/admin/grants', {
          scope: 'channel',
          target: 'discord:123',
          tool: 'bash',
          expires: '7d',
        })
      ).status,
      201,
    );
    const listed = (await (await fetch(`${base}/v1/api/admin/grants`, { headers: { cookie } })).json()) as {
      grants: Array<{ grant_id: string; status: string }>;
    };
    const grant = listed.grants[0];
    assert.equal(grant?.status, 'active');
    assert.equal((await change('DELETE', `/v1/api/admin/grants/${grant.grant_id}`)).status, 200);
    assert.equal((await change('DELETE', `/v1/api/admin/grants/${grant.grant_id}`)).status, 409, 'already revoked');
    assert.equal((await change('DELETE', '/v1/api/admin/grants/missing')).status, 404);
    assert.equal((await fetch(`${base}/v1/api/admin/approvals/history?limit=0`, { headers: { cookie } })).status, 400);
    const history = await fetch(`${base}/v1/api/admin/approvals/history`, { headers: { cookie } });
    assert.deepEqual(await history.json(), { history: [] });
    const detail = await fetch(`${base}/v1/api/admin/conversations/missing`, { headers: { cookie } });
    assert.equal(detail.status, 404);
  });

  it('shows no secret of the config or the environment in any page, answer or event', async () => {
    const seen: string[] = [];
    for (const path of [
      '/console',
      '/console/assets/app.js',
      '/console/assets/views.js',
      '/console/session',
      '/v1/api/admin/conversations',
      '/v1/api/admin/approvals',
      '/v1/api/admin/approvals/history',
      '/v1/api/admin/status',
      '/v1/api/admin/grants?all=1',
      '/v1/api/admin/mcp',
      '/v1/api/admin/audit',
    ]) {
      const response = await fetch(`${base}${path}`, { headers: { cookie } });
      assert.equal(response.status, 200, path);
      seen.push(await response.text());
    }
    seen.push(await readEvents(`${base}/console/events`, cookie, 4));
    assert.match(seen.at(-1) ?? '', /event: conversations/);
    const fromEnv = Object.entries(process.env).flatMap(([name, value]) =>
      /secret|key|token|passw/i.test(name) && value !== undefined && value.length >= 8 ? [value] : [],
    );
    for (const secret of [...SECRETS, ...fromEnv]) {
      assert.ok(!seen.some((text) => text.includes(secret)), 'a secret appeared in the console');
    }
  });
});
