/**
 * The operator console driven in headless Chromium (Debian's `chromium` with playwright-core) against the real
 * gateway, the fake Discord and the fake model (ADR 0047): sign in, see a conversation appear live while a Discord
 * user talks to the bot, read it (a `<script>` in chat is shown as text and never runs), approve its pending tool
 * call and see the turn finish in Discord, reload MCP, revoke a grant. Screenshots of each view are saved in a
 * temporary folder whose path is printed.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { mintAdminToken } from '../../src/gateway/http/auth.js';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHROMIUM = '/usr/bin/chromium';
const CHANNEL_ID = '300000000000000001';
const ADMIN_SECRET = 'browser-admin-secret-browser-admin-secret-xyz';
const HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">please write the notes';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const missing = !existsSync(CHROMIUM);
const inCi = process.env['SANDPIPER_CI'] !== undefined || process.env['CI'] !== undefined;
const skip =
  missing && !inCi
    ? `${CHROMIUM} is not installed (apt-get install chromium); the console browser test runs in CI (.ci/run)`
    : false;

describe('the console in a browser', { skip }, () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  const shots = mkdtempSync(path.join(tmpdir(), 'sp-console-shots-'));
  const shot = (name: string) => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  const view = (name: string) =>
    page
      .getByRole('navigation', { name: 'Views' })
      .getByRole('button', { name: new RegExp(`^${name}`) })
      .click();

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      adminSecret: ADMIN_SECRET,
      mcpServers: { everything: [EVERYTHING, 'stdio'] },
      flags: { 'console.enabled': true },
      users: [['discord', '400000000000000001', 'alice']],
    });
    alice = discord.user('400000000000000001', 'alice');
    profile = mkdtempSync(path.join(tmpdir(), 'sp-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1100, height: 800 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    console.log(`console screenshots: ${shots}`);
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const botMessages = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((m) => m.author.id === discord.state.bot.id);

  it('signs in, shows a conversation live, approves its tool call, reloads MCP and revokes a grant', async () => {
    await page.goto(`${gateway.adminUrl}/console`);
    await page
      .getByLabel('Admin token')
      .fill(await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] }));
    await shot('01-sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('ops (admin)').waitFor();

    llm.enqueue(
      {
        toolCalls: [
          { id: 'call_w1', name: 'write_file', arguments: JSON.stringify({ path: 'notes.txt', content: 'hello' }) },
        ],
      },
      { text: 'notes written' },
    );
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, HOSTILE, true);
    // The row arrives through the event stream: the page is not reloaded.
    const row = page.getByRole('row').filter({ hasText: 'alice' });
    await row.waitFor({ timeout: 30_000 });
    await shot('02-conversations');
    await row.getByRole('button', { name: 'Open' }).click();
    await page.locator('.turn').filter({ hasText: HOSTILE }).waitFor();
    assert.equal(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
      undefined,
      'chat markup never runs',
    );
    assert.equal(await page.locator('#view img, #view script').count(), 0, 'chat markup is not turned into elements');
    await shot('03-conversation');

    await view('Approvals');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor({ timeout: 30_000 });
    await shot('04-approvals');
    await approve.click();
    await discord.waitFor(
      () => botMessages(mention.id).find((m) => m.content === 'notes written'),
      30_000,
      'the turn to finish',
    );
    // The card in the thread shows the decision as a click would, naming the operator.
    await discord.waitFor(
      () => botMessages(mention.id).find((m) => JSON.stringify(m.embeds).includes('admin:ops')),
      30_000,
      'the card edited',
    );
    await page.getByText('Nothing waits for approval.').waitFor();

    await view('MCP');
    await page.getByRole('cell', { name: 'everything' }).waitFor();
    await page.getByRole('button', { name: 'Reload definitions' }).click();
    await page.getByText(/^Reloaded/).waitFor();
    await shot('05-mcp');

    const headers = {
      authorization: `Bearer ${await mintAdminToken(ADMIN_SECRET, { subject: 'ops', scopes: ['admin:write'] })}`,
      'content-type': 'application/json',
    };
    const added = await fetch(`${gateway.adminUrl}/v1/api/admin/grants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ scope: 'user', target: 'alice', tool: 'write_file' }),
    });
    assert.equal(added.status, 201);
    await view('Policies');
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Grant write_file revoked.').waitFor();
    const grants = (await (await fetch(`${gateway.adminUrl}/v1/api/admin/grants?all=1`, { headers })).json()) as {
      grants: Array<{ status: string }>;
    };
    assert.deepEqual(
      grants.grants.map((grant) => grant.status),
      ['revoked'],
    );
    await shot('06-policies-and-grants');

    for (const [name, waitText] of [
      ['Status', 'Sandbox'],
      ['Errors', 'Recent errors and refusals'],
    ] as const) {
      await view(name);
      await page.getByText(waitText).first().waitFor();
      await shot(`07-${name.toLowerCase()}`);
    }
    // The turn's tokens are in GET /v1/api/admin/usage (written with the workstream's next state change).
    await view('Usage');
    await page.locator('svg.chart rect').first().waitFor({ timeout: 30_000 });
    await page.getByText('■ alice').waitFor();
    await shot('07-usage-chart');
    // A gateway without the usage route (an older one behind the console) says so instead of failing.
    await page.route('**/v1/api/admin/usage?*', (route) =>
      route.fulfill({ status: 404, json: { error: 'not found' } }),
    );
    await view('Conversations');
    await view('Usage');
    await page.getByText('Usage not available').waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await view('Conversations');
    await page.getByRole('button', { name: 'Open' }).first().focus();
    await page.keyboard.press('Enter');
    await page.locator('.turn').filter({ hasText: HOSTILE }).waitFor();
    await shot('08-phone-conversation');
  });
});
