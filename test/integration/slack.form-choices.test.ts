/** End to end over bolt: choice fields of an elicitation form (enum, boolean) become Slack drop-downs whose picks parse. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSlackAdapter } from '../../src/channels/slack/index.js';
import { loadConfig } from '../../src/config/index.js';
import type { ElicitationAnswer, ElicitationHandler, ElicitationSource } from '../../src/gateway/elicitations.js';
import { createGateway, type Gateway } from '../../src/gateway/index.js';
import { createAgentRuntime, type AgentRuntime } from '../../src/main-agent.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import {
  BOT_USER_ID,
  FakeSlack,
  type FakeSlackMessage,
  type FakeSlackUser,
  type FakeView,
} from '../fakes/fake-slack.js';
import { createTestStores, type TestStores } from '../helpers/test-stores.js';

const CHANNEL = 'C0001';

interface Option {
  text: { text: string };
  value: string;
}

interface InputBlock {
  block_id: string;
  element: { type: string; options?: Option[]; initial_option?: Option; placeholder?: { text: string } };
}

/** An ElicitationSource driven by the test: `ask` hands a request to the gateway's handler. */
class ScriptedElicitations implements ElicitationSource {
  private handler: ElicitationHandler | undefined;
  onElicitation(handler: ElicitationHandler): () => void {
    this.handler = handler;
    return () => {
      this.handler = undefined;
    };
  }
  ask(id: string, wsId: string, requestedSchema: Record<string, unknown>): Promise<ElicitationAnswer> {
    if (!this.handler) throw new Error('the gateway did not subscribe');
    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    return this.handler(
      { id, server: 'picker', message: 'Pick a few things.', requestedSchema, workstreamIds: [wsId], expiresAt },
      new AbortController().signal,
    );
  }
}

describe('slack form choices', () => {
  let slack: FakeSlack;
  let llm: FakeLlmServer;
  let db: TestStores;
  let runtime: AgentRuntime;
  let gateway: Gateway;
  let dir: string;
  let alice: FakeSlackUser;
  let wsId: string;
  let threadTs: string;
  const source = new ScriptedElicitations();

  before(async () => {
    [slack, llm, db] = await Promise.all([FakeSlack.start(), startFakeLlmServer(), createTestStores()]);
    dir = mkdtempSync(join(tmpdir(), 'sp-slack-choices-'));
    const config = loadConfig({
      cwd: dir,
      env: {},
      flags: {
        'gateway.data_dir': dir,
        'models.fake.provider': 'openai',
        'models.fake.base_url': llm.url,
        'models.fake.api_key': 'k',
        'models.fake.model': 'm',
        'slack.bot_token': slack.botToken,
        'slack.app_token': slack.appToken,
        'slack.api_url': slack.apiUrl,
      },
    });
    const logger = createSilentLogger();
    runtime = await createAgentRuntime(config, db.stores, logger, { evictIntervalMs: 0 });
    const adapter = createSlackAdapter(config.slack, logger, { webRetries: 0, socketRetries: 0 });
    gateway = createGateway({
      config,
      adapters: [adapter],
      manager: runtime.manager,
      stores: db.stores,
      logger,
      elicitations: source,
    });
    await gateway.start(new AbortController().signal);
    const owner = await db.stores.users.createUser('alice');
    await db.stores.users.link('slack', 'U0ALICE', owner.userId);
    alice = slack.user('U0ALICE', 'alice');
    const ws = await runtime.manager.create({ ownerUserId: owner.userId, name: 'choices' });
    wsId = ws.wsId;
    // The thread hangs off a message already in the channel (the fake refuses replies to unknown threads).
    threadTs = slack.state.addMessage({ channel: CHANNEL, user: alice.id, text: 'a thread' }).ts;
    await db.stores.routes.putRoute({ channelType: 'slack', channelId: `${CHANNEL}:${threadTs}`, wsId });
  });

  after(async () => {
    await gateway?.stop();
    await runtime?.close();
    await Promise.allSettled([slack?.close(), llm?.close(), db?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const card = (formId: string): FakeSlackMessage | undefined =>
    slack.state
      .thread(CHANNEL, threadTs)
      .find((m) => m.user === BOT_USER_ID && slack.state.buttons(m).some((b) => b.value === formId));

  async function openForm(formId: string): Promise<{ view: FakeView; inputs: InputBlock[] }> {
    const message = await slack.waitFor(() => card(formId), 15_000, 'form card');
    const answer = slack.state.buttons(message).find((b) => b.text?.text === 'Answer')?.action_id ?? '';
    const open = slack.click(message, answer, alice);
    const view = await slack.waitFor(
      () => slack.state.views.find((v) => v.triggerId === open.triggerId),
      15_000,
      'form modal',
    );
    return { view, inputs: view.view.blocks as InputBlock[] };
  }

  it('offers enum titles and yes/no as drop-downs, pre-selects defaults, and turns the picks into typed values', async () => {
    const answer = source.ask('form-choices-1', wsId, {
      type: 'object',
      properties: {
        size: {
          type: 'string',
          title: 'Size',
          enum: ['s', 'm', 'l'],
          enumNames: ['Small', 'Medium', 'Large'],
          default: 'm',
        },
        gift: { type: 'boolean', title: 'Gift wrap', default: true },
        note: { type: 'string', title: 'Note' },
      },
      required: ['size'],
    });
    const { view, inputs } = await openForm('form-choices-1');
    const [size, gift, note] = inputs;
    assert.equal(size?.element.type, 'static_select');
    assert.deepEqual(
      size?.element.options?.map((o) => [o.text.text, o.value]),
      [
        ['Small', 'Small'],
        ['Medium', 'Medium'],
        ['Large', 'Large'],
      ],
    );
    assert.equal(size?.element.initial_option?.value, 'Medium', 'the default is pre-selected');
    assert.equal(gift?.element.type, 'static_select');
    assert.deepEqual(
      gift?.element.options?.map((o) => o.value),
      ['yes', 'no'],
    );
    assert.equal(gift?.element.initial_option?.value, 'yes');
    assert.equal(note?.element.type, 'plain_text_input', 'free text stays a text input');

    const seen = slack.state.privateTo(alice.id).length;
    slack.submitView(view.triggerId, alice, {
      [size?.block_id ?? '']: 'Large',
      [gift?.block_id ?? '']: 'no',
      [note?.block_id ?? '']: 'thanks',
    });
    assert.deepEqual(await answer, { action: 'accept', content: { size: 'l', gift: false, note: 'thanks' } });
    assert.equal(
      await slack.waitFor(() => slack.state.privateTo(alice.id)[seen], 15_000, 'answer reply'),
      'Answer sent.',
    );
  });

  it('keeps a text input when the choices cannot all be offered in a drop-down, and still accepts a typed choice', async () => {
    const long = 'x'.repeat(200);
    const answer = source.ask('form-choices-2', wsId, {
      type: 'object',
      properties: { pick: { type: 'string', title: 'Pick', enum: ['short', long] } },
      required: ['pick'],
    });
    const { view, inputs } = await openForm('form-choices-2');
    assert.equal(inputs[0]?.element.type, 'plain_text_input');
    assert.match(inputs[0]?.element.placeholder?.text ?? '', /^One of: short, x+/);
    slack.submitView(view.triggerId, alice, { [inputs[0]?.block_id ?? '']: 'SHORT' });
    assert.deepEqual(await answer, { action: 'accept', content: { pick: 'short' } });
  });
});
