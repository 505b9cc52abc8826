/**
 * The notify tool through the real OpenAI and Anthropic clients: validation, delivery through gateways found in
 * the services table with a minted service token, failover, retries, the per-turn cap, and no leaked details.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Workstream } from '../../src/agent/workstream-api.js';
import { isoFromMs } from '../../src/shared/time.js';
import { startFakeNotifyGateway, type FakeNotifyGateway } from '../fakes/fake-notify-gateway.js';
import {
  ofType,
  record,
  startHarness,
  toolIdsOf,
  turnEnd,
  VENDORS,
  waitFor,
  type AgentHarness,
} from './agent.harness.js';

const SECRET = 'notify-tool-secret-notify-tool-secret';
const JWT = { secret: SECRET, audience: 'turnstone-channel' };

for (const vendor of VENDORS) {
  describe(`notify tool (${vendor})`, () => {
    let h: AgentHarness;
    let live: FakeNotifyGateway;
    let spare: FakeNotifyGateway;
    let deadUrl: string;

    before(async () => {
      h = await startHarness(vendor, { notifyRetryDelaysMs: [5, 5], flags: { 'auth.jwt_secret': SECRET } });
      [live, spare] = await Promise.all([startFakeNotifyGateway(JWT), startFakeNotifyGateway(JWT)]);
      // The owner's own Discord account: a channel target naming it is a message to the owner.
      await h.db.stores.users.link('discord', '123456', h.owner.userId);
      const dead = await startFakeNotifyGateway(JWT);
      deadUrl = dead.url;
      await dead.close();
    });
    afterEach(async () => {
      await h.db.knex('services').delete();
      live.requests.length = 0;
      spare.requests.length = 0;
      live.respondWith('sent');
      spare.respondWith('sent');
    });
    after(async () => {
      await Promise.all([h.close(), live.close(), spare.close()]);
    });

    /** Registers gateways; the first listed gets the newest heartbeat (it is tried first). */
    async function register(...urls: string[]): Promise<void> {
      for (const [index, url] of urls.entries()) {
        await h.db.stores.services.register({ serviceType: 'channel', serviceId: `gw-${index}`, url });
        await h.db
          .knex('services')
          .where({ service_id: `gw-${index}` })
          .update({ last_heartbeat: isoFromMs(Date.now() - index * 10_000) });
      }
    }

    async function turn(
      calls: Array<Record<string, unknown>>,
    ): Promise<{ results: string[]; ws: Workstream; needsApproval: boolean }> {
      const toolCalls = calls.map((args, index) => ({
        id: `call_n${index}`,
        name: 'notify',
        arguments: JSON.stringify(args),
      }));
      h.llm.enqueue({ toolCalls }, { text: 'done' });
      const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'notify' });
      const events = record(ws);
      await ws.send('tell them');
      await turnEnd(events);
      const results = toolIdsOf(vendor, h.llm.requests.at(-1)?.body).resultTexts;
      return { results, ws, needsApproval: ofType(events, 'approval-request').length > 0 };
    }

    it('refuses bad arguments before sending anything', async () => {
      await register(live.url);
      const { results } = await turn([
        { message: '   ' },
        { message: 'x'.repeat(2001) },
        { message: 'hi', username: 'alice', channel_type: 'discord', channel_id: '1' },
        { message: 'hi', channel_type: 'discord' },
        { message: 'hi', channel_id: '1' },
        { message: 'hi' },
      ]);
      assert.deepEqual(results, [
        'Error: message is required',
        "Error: invalid arguments for notify: 'message' must NOT have more than 2000 characters",
        'Error: provide either username or channel_type+channel_id, not both',
        'Error: channel_id is required when channel_type is provided',
        'Error: channel_type is required when channel_id is provided',
        'Error: provide username or channel_type+channel_id',
      ]);
      assert.equal(live.requests.length, 0);
    });

    it('delivers without approval, with a write-scoped service token and the workstream id', async () => {
      await register(live.url, spare.url);
      const { results, ws, needsApproval } = await turn([
        { message: 'build finished', title: 'CI', username: 'alice' },
      ]);
      assert.deepEqual(results, ['Notification sent successfully']);
      assert.equal(needsApproval, false);
      assert.equal(live.requests.length, 1);
      assert.equal(spare.requests.length, 0, 'only the first healthy gateway is called on success');
      const sent = live.requests[0];
      assert.equal(sent?.path, '/v1/api/notify');
      assert.deepEqual(sent?.body, {
        target: { username: 'alice' },
        message: 'build finished',
        title: 'CI',
        ws_id: ws.wsId,
      });
      assert.equal(sent?.principal?.subject, 'system');
      assert.ok(sent?.principal?.scopes.includes('write'));
    });

    it('fails over past a dead gateway and a file:// entry to the next one', async () => {
      await register(deadUrl, 'file:///etc/passwd', live.url);
      const { results } = await turn([{ message: 'over', channel_type: 'discord', channel_id: '123456' }]);
      assert.deepEqual(results, ['Notification sent successfully']);
      assert.deepEqual(live.requests[0]?.body['target'], { channel_type: 'discord', channel_id: '123456' });
    });

    it('says delivery failed, without internal details, when no gateway delivers; failures use no quota', async () => {
      await register(deadUrl, live.url);
      live.respondWith('not-sent');
      const failed = await turn([{ message: 'lost', username: 'alice' }]);
      assert.deepEqual(failed.results, ['Error: notification delivery failed']);
      assert.equal(live.requests.length, 3, 'three attempts');
      live.respondWith(500);
      assert.deepEqual((await turn([{ message: 'lost', username: 'alice' }])).results, [
        'Error: notification delivery failed',
      ]);
      await h.db.knex('services').delete();
      assert.deepEqual((await turn([{ message: 'nobody', username: 'alice' }])).results, [
        'Error: no channel gateway services available',
      ]);
    });

    it('keeps one Idempotency-Key across retries whose outcome is unknown, and takes a new one after a definite failure', async () => {
      await register(live.url);
      live.respondWith(500);
      await turn([{ message: 'maybe', username: 'alice' }]);
      const unknown = live.requests.map((request) => request.idempotencyKey);
      assert.equal(unknown.length, 3);
      assert.match(unknown[0] ?? '', /^[0-9a-f]{32}$/);
      assert.equal(new Set(unknown).size, 1, 'a retry after a 5xx may be a duplicate: same key');
      live.requests.length = 0;
      live.respondWith('not-sent');
      await turn([{ message: 'refused', username: 'alice' }]);
      const definite = live.requests.map((request) => request.idempotencyKey);
      assert.equal(new Set(definite).size, 3, 'after "not delivered" the next attempt is a new request');
      assert.ok(!definite.includes(unknown[0]), 'another call never reuses a key');
    });

    it('asks with a card before notifying anyone but the owner, and honours the answer', async () => {
      await register(live.url);
      await h.db.stores.users.createUser(`bob-${vendor}`);
      const others = [
        { message: 'hello bob', username: `bob-${vendor}` },
        { message: 'to a channel', channel_type: 'slack', channel_id: 'C0123' },
      ];
      for (const [index, args] of others.entries()) {
        h.llm.enqueue(
          { toolCalls: [{ id: `call_o${index}`, name: 'notify', arguments: JSON.stringify(args) }] },
          { text: 'done' },
        );
        const ws = await h.runtime.manager.create({ ownerUserId: h.owner.userId, name: 'notify-other' });
        const events = record(ws);
        await ws.send('tell them');
        const request = await waitFor(() => ofType(events, 'approval-request')[0], 'approval-request');
        assert.match(request.items[0]?.header ?? '', /not the conversation's owner/);
        assert.equal(live.requests.length, index === 0 ? 0 : 1, 'nothing is sent before the answer');
        await h.runtime.manager.resolveApproval(request.approvalId, {
          approved: index === 0,
          decidedBy: h.owner.userId,
        });
        await turnEnd(events);
      }
      assert.equal(live.requests.length, 1, 'the approved one was sent, the denied one not');
      assert.deepEqual(live.requests[0]?.body['target'], { username: `bob-${vendor}` });
    });

    it('delivers at most five notifications per turn', async () => {
      await register(live.url);
      const { results } = await turn(
        Array.from({ length: 6 }, (_, index) => ({ message: `n${index}`, username: 'alice' })),
      );
      assert.equal(results.filter((text) => text === 'Notification sent successfully').length, 5);
      assert.equal(
        results.filter((text) => text === 'Error: notification rate limit exceeded (max 5 per turn)').length,
        1,
      );
      assert.equal(live.requests.length, 5);
    });
  });
}
