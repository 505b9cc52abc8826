/** End to end: MCP elicitation requests from real stdio MCP servers become Discord form cards and modals. */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { EVERYTHING } from '../fakes/mcp-servers.js';
import { startTestGateway, type TestGateway } from '../helpers/start-test-gateway.js';

const CHANNEL_ID = '300000000000000001';
const FORM_SERVER = fileURLToPath(new URL('../fakes/mcp-form-server.mjs', import.meta.url));

interface ToolMessage {
  role: string;
  content: unknown;
}

describe('discord MCP elicitation forms', () => {
  let discord: FakeDiscord;
  let llm: FakeLlmServer;
  let gateway: TestGateway;
  let alice: FakeUser;
  let mallory: FakeUser;

  before(async () => {
    [discord, llm] = await Promise.all([FakeDiscord.start(), startFakeLlmServer()]);
    gateway = await startTestGateway({
      discord,
      llm,
      flags: { 'agent.auto_approve_tools': ['mcp__*'] },
      mcpServers: { everything: [EVERYTHING, 'stdio'], form: [FORM_SERVER] },
      users: [
        ['discord', '400000000000000021', 'alice'],
        ['discord', '400000000000000022', 'mallory'],
      ],
      waitConnected: true,
    });
    alice = discord.user('400000000000000021', 'alice');
    mallory = discord.user('400000000000000022', 'mallory');
  });

  after(async () => {
    await gateway?.close();
  });

  const bot = (threadId: string): FakeMessage[] =>
    discord.state.messagesIn(threadId).filter((m) => m.author.id === discord.state.bot.id);
  const formCard = (threadId: string): FakeMessage | undefined =>
    bot(threadId).find((m) => JSON.stringify(m.embeds).includes('Input Requested'));
  const reply = (interactionId: string) => () => discord.state.interactions.get(interactionId)?.reply;
  const lastToolResult = (): string => {
    const messages = (llm.requests.at(-1)?.body as { messages: ToolMessage[] }).messages;
    return JSON.stringify(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
  };

  function button(message: FakeMessage, label: string): string {
    for (const row of message.components as { components?: { label?: string; custom_id?: string }[] }[]) {
      const found = row.components?.find((component) => component.label === label);
      if (found?.custom_id) return found.custom_id;
    }
    throw new Error(`no ${label} button`);
  }

  /** Alice asks; the model calls `tool`; resolves with the thread and the form card once it is posted. */
  async function askForForm(tool: string, finalText: string): Promise<{ threadId: string; card: FakeMessage }> {
    llm.enqueue(
      { toolCalls: [{ id: `call_${llm.requests.length}`, name: tool, arguments: '{}' }] },
      { text: finalText },
    );
    const mention = discord.state.injectMessage(CHANNEL_ID, alice, `please run ${tool}`, true);
    const threadId = mention.id;
    const card = await discord.waitFor(() => formCard(threadId), 30_000, 'form card');
    return { threadId, card };
  }

  it('opens a modal for the owner only and returns the submitted, converted values to the model', async () => {
    const { threadId, card } = await askForForm('mcp__form__book_table', 'Your table is booked.');
    assert.match(JSON.stringify(card.embeds), /Please give the booking details/);
    assert.match(JSON.stringify(card.embeds), /Name, Guests, Outside table, Time/);
    const answerId = button(card, 'Answer');
    assert.ok(button(card, 'Decline'));

    const stranger = discord.state.clickButton(card.id, answerId, mallory);
    assert.match(await discord.waitFor(reply(stranger.id), 15_000, 'refusal'), /Only the owner/);
    assert.equal(discord.state.interactions.get(stranger.id)?.ephemeral, true);
    assert.equal(discord.state.interactions.get(stranger.id)?.modal, undefined);

    const open = discord.state.clickButton(card.id, answerId, alice);
    const modal = await discord.waitFor(() => discord.state.interactions.get(open.id)?.modal, 15_000, 'form modal');
    const inputs = (modal.components as { components: Record<string, unknown>[] }[]).map(
      (row) => row.components[0] ?? {},
    );
    assert.deepEqual(
      inputs.map((input) => [input.label, input.required]),
      [
        ['Name', true],
        ['Guests', true],
        ['Outside table', false],
        ['Time', false],
      ],
    );
    assert.equal(inputs[1]?.placeholder, 'A whole number from 1 to 12');
    assert.equal(inputs[1]?.value, '2');
    assert.equal(inputs[3]?.placeholder, 'One of: 18:00, 19:30, 21:00');
    const ids = inputs.map((input) => String(input.custom_id));
    const fill = (guests: string) => ({
      [ids[0] ?? '']: 'Ada',
      [ids[1] ?? '']: guests,
      [ids[2] ?? '']: 'yes',
      [ids[3] ?? '']: '19:30',
    });

    const invalid = discord.state.submitModal(String(modal.custom_id), threadId, alice, fill('lots'));
    assert.match(await discord.waitFor(reply(invalid.id), 15_000, 'validation error'), /Guests: enter a whole number/);
    assert.equal(discord.state.interactions.get(invalid.id)?.ephemeral, true);
    assert.equal(card.components.length, 1, 'the card stays answerable');

    const submit = discord.state.submitModal(String(modal.custom_id), threadId, alice, fill('4'));
    assert.equal(await discord.waitFor(reply(submit.id), 15_000, 'answer reply'), 'Answer sent.');
    await discord.waitFor(
      () => bot(threadId).find((m) => m.content === 'Your table is booked.'),
      30_000,
      'final answer',
    );
    const result = lastToolResult();
    assert.match(result, /\\"action\\":\\"accept\\"/);
    assert.match(result, /\\"name\\":\\"Ada\\",\\"guests\\":4,\\"outside\\":true,\\"time\\":\\"19:30\\"/);
    assert.equal(card.components.length, 0);
    assert.match(JSON.stringify(card.embeds), /Answered/);
    assert.match(JSON.stringify(card.embeds), /alice/);

    const late = discord.state.clickButton(card.id, answerId, alice);
    assert.equal(
      await discord.waitFor(reply(late.id), 15_000, 'late click reply'),
      'This request was already answered.',
    );
  });

  it('passes a decline to the server when the owner clicks Decline', async () => {
    const { threadId, card } = await askForForm('mcp__form__book_table', 'No booking then.');
    const click = discord.state.clickButton(card.id, button(card, 'Decline'), alice);
    assert.equal(await discord.waitFor(reply(click.id), 15_000, 'decline reply'), 'Declined.');
    await discord.waitFor(() => bot(threadId).find((m) => m.content === 'No booking then.'), 30_000, 'final answer');
    assert.match(lastToolResult(), /\\"action\\":\\"decline\\"/);
    assert.match(JSON.stringify(card.embeds), /Declined/);
    assert.equal(card.components.length, 0);
  });

  it('shows a card saying the form cannot be shown and declines when the schema does not fit a modal', async () => {
    const { threadId, card } = await askForForm(
      'mcp__everything__trigger-elicitation-request',
      'The form could not be shown.',
    );
    assert.match(JSON.stringify(card.embeds), /Cannot Be Shown Here/);
    assert.match(JSON.stringify(card.embeds), /13 fields and at most 5/);
    assert.equal(card.components.length, 0, 'no buttons on a form that cannot be answered');
    await discord.waitFor(
      () => bot(threadId).find((m) => m.content === 'The form could not be shown.'),
      30_000,
      'final answer',
    );
    assert.match(lastToolResult(), /User declined/);
  });

  it('answers privately that the request expired when a card from before a restart is clicked', async () => {
    // The card of an elicitation this process never saw (as after a restart: requests are held in memory only).
    const old = discord.state.createMessage(CHANNEL_ID, discord.state.bot, {
      embeds: [{ title: 'Input Requested' }],
      components: [
        { type: 1, components: [{ type: 2, style: 1, label: 'Answer', custom_id: 'sp:form-answer:0123456789abcdef' }] },
      ],
    });
    const click = discord.state.clickButton(old.id, 'sp:form-answer:0123456789abcdef', alice);
    assert.equal(await discord.waitFor(reply(click.id), 15_000, 'expired reply'), 'This request has expired.');
    assert.equal(discord.state.interactions.get(click.id)?.ephemeral, true);
    assert.deepEqual(discord.state.interactions.get(click.id)?.callbacks, [4]);
  });
});
