/** End to end: MCP elicitation requests from real stdio MCP servers become Slack form cards and modals (through bolt). */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import {
  BOT_USER_ID,
  FakeSlack,
  type FakeSlackMessage,
  type FakeSlackUser,
  type FakeView,
} from '../fakes/fake-slack.js';
import { EVERYTHING } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL = 'C0001';
const FORM_SERVER = fileURLToPath(new URL('../fakes/mcp-form-server.mjs', import.meta.url));

interface ToolMessage {
  role: string;
  content: unknown;
}

interface InputBlock {
  block_id: string;
  optional: boolean;
  label: { text: string };
  hint?: { text: string };
  element: { type: string; placeholder?: { text: string }; initial_value?: string };
}

describe('slack MCP elicitation forms', () => {
  let slack: FakeSlack;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeSlackUser;
  let mallory: FakeSlackUser;

  before(async () => {
    [slack, llm] = await Promise.all([FakeSlack.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      slack,
      llm,
      flags: { 'agent.auto_approve_tools': ['mcp__*'] },
      mcpServers: { everything: [EVERYTHING, 'stdio'], form: [FORM_SERVER] },
      users: [
        ['slack', 'U0ALICE', 'alice'],
        ['slack', 'U0MALLORY', 'mallory'],
      ],
      waitConnected: true,
    });
    alice = slack.user('U0ALICE', 'alice');
    mallory = slack.user('U0MALLORY', 'mallory');
  });

  after(async () => {
    await gateway?.close();
  });

  const bot = (threadTs: string): FakeSlackMessage[] =>
    slack.state.thread(CHANNEL, threadTs).filter((m) => m.user === BOT_USER_ID);
  const formCard = (threadTs: string): FakeSlackMessage | undefined =>
    bot(threadTs).find((m) => JSON.stringify(m.blocks).includes('Input requested'));
  const finalText = (threadTs: string, text: string) => () => bot(threadTs).find((m) => m.text === text);
  const privateTo = (user: FakeSlackUser): string[] => slack.state.privateTo(user.id);
  /** The next private answer `user` receives after `seen` earlier ones. */
  const nextPrivate = (user: FakeSlackUser, seen: number, what: string): Promise<string> =>
    slack.waitFor(() => privateTo(user)[seen], 15_000, what);
  const viewFor = (triggerId: string, what: string): Promise<FakeView> =>
    slack.waitFor(() => slack.state.views.find((v) => v.triggerId === triggerId), 15_000, what);
  const lastToolResult = (): string => {
    const messages = (llm.requests.at(-1)?.body as { messages: ToolMessage[] }).messages;
    return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
  };
  const button = (message: FakeSlackMessage, label: string): string => {
    const found = slack.state.buttons(message).find((b) => b.text?.text === label)?.action_id;
    if (!found) throw new Error(`no ${label} button`);
    return found;
  };

  /** Alice asks; the model calls `tool`; resolves with the thread and the form card once it is posted. */
  async function askForForm(tool: string, finalAnswer: string): Promise<{ threadTs: string; card: FakeSlackMessage }> {
    llm.enqueue(
      { toolCalls: [{ id: `call_${llm.requests.length}`, name: tool, arguments: '{}' }] },
      { text: finalAnswer },
    );
    const { message } = slack.userMessage(alice, CHANNEL, `<@${BOT_USER_ID}> please run ${tool}`);
    const card = await slack.waitFor(() => formCard(message.ts), 30_000, 'form card');
    return { threadTs: message.ts, card };
  }

  it('opens a modal for the owner only, reports invalid values privately and returns the converted values to the model', async () => {
    const { threadTs, card } = await askForForm('mcp__form__book_table', 'Your table is booked.');
    assert.match(JSON.stringify(card.blocks), /Please give the booking details/);
    assert.match(JSON.stringify(card.blocks), /Name, Guests, Outside table, Time/);
    const answer = button(card, 'Answer');
    const formId = slack.state.buttons(card)[0]?.value ?? '';
    assert.deepEqual(
      slack.state.buttons(card).map((b) => [b.text?.text, b.style]),
      [
        ['Answer', 'primary'],
        ['Decline', 'danger'],
      ],
    );

    const stranger = slack.click(card, answer, mallory);
    assert.match(await nextPrivate(mallory, 0, 'refusal'), /Only the owner/);
    assert.ok(slack.acks.has(stranger.envelopeId), 'the click was acknowledged');
    assert.equal(
      slack.state.views.some((v) => v.triggerId === stranger.triggerId),
      false,
      'no modal for a stranger',
    );

    const open = slack.click(card, answer, alice);
    const view = await viewFor(open.triggerId, 'form modal');
    assert.equal((view.view.title as { text: string }).text, 'Input for form');
    const inputs = view.view.blocks as InputBlock[];
    assert.deepEqual(
      inputs.map((b) => [b.label.text, b.optional]),
      [
        ['Name', false],
        ['Guests', false],
        ['Outside table', true],
        ['Time', true],
      ],
    );
    assert.equal(inputs[1]?.hint?.text, 'A whole number from 1 to 12');
    assert.equal(inputs[1]?.element.initial_value, '2');
    assert.equal(inputs[3]?.element.placeholder?.text, 'One of: 18:00, 19:30, 21:00');
    const ids = inputs.map((b) => b.block_id);
    const fill = (guests: string) => ({
      [ids[0] ?? '']: 'Ada',
      [ids[1] ?? '']: guests,
      [ids[2] ?? '']: 'yes',
      [ids[3] ?? '']: '19:30',
    });

    const seen = privateTo(alice).length;
    const invalid = slack.submitView(open.triggerId, alice, fill('lots'));
    assert.match(await nextPrivate(alice, seen, 'validation error'), /Guests: enter a whole number/);
    assert.ok(slack.acks.has(invalid), 'the submission was acknowledged');
    assert.equal(slack.state.buttons(card).length, 2, 'the card stays answerable');

    const again = slack.click(card, answer, alice);
    const retry = await viewFor(again.triggerId, 'form modal again');
    assert.equal(
      (retry.view.blocks as InputBlock[])[1]?.element.initial_value,
      'lots',
      'the last answer is pre-filled',
    );
    slack.submitView(again.triggerId, alice, fill('4'));
    assert.equal(await nextPrivate(alice, seen + 1, 'answer reply'), 'Answer sent.');
    await slack.waitFor(finalText(threadTs, 'Your table is booked.'), 30_000, 'final answer');
    const result = lastToolResult();
    assert.match(result, /\\"action\\":\\"accept\\"/);
    assert.match(result, /\\"name\\":\\"Ada\\",\\"guests\\":4,\\"outside\\":true,\\"time\\":\\"19:30\\"/);
    assert.equal(slack.state.buttons(card).length, 0, 'the buttons are gone');
    assert.match(JSON.stringify(card.blocks), /Answered by alice/);

    slack.click(card, answer, alice, formId); // a client still showing the old buttons
    assert.equal(await nextPrivate(alice, seen + 2, 'late click reply'), 'This request was already answered.');
  });

  it('passes a decline to the server when the owner clicks Decline', async () => {
    const { threadTs, card } = await askForForm('mcp__form__book_table', 'No booking then.');
    const seen = privateTo(alice).length;
    slack.click(card, button(card, 'Decline'), alice);
    assert.equal(await nextPrivate(alice, seen, 'decline reply'), 'Declined.');
    await slack.waitFor(finalText(threadTs, 'No booking then.'), 30_000, 'final answer');
    assert.match(lastToolResult(), /\\"action\\":\\"decline\\"/);
    assert.match(JSON.stringify(card.blocks), /Declined by alice/);
    assert.equal(slack.state.buttons(card).length, 0);
  });

  it('shows a card saying the form cannot be shown and declines when a field cannot be typed', async () => {
    const { threadTs, card } = await askForForm(
      'mcp__everything__trigger-elicitation-request',
      'The form could not be shown.',
    );
    assert.match(JSON.stringify(card.blocks), /cannot be shown in Slack/);
    assert.match(JSON.stringify(card.blocks), /Multiple Select Enum/);
    assert.equal(slack.state.buttons(card).length, 0, 'no buttons on a form that cannot be answered');
    await slack.waitFor(finalText(threadTs, 'The form could not be shown.'), 30_000, 'final answer');
    assert.match(lastToolResult(), /User declined/);
  });
});
