/**
 * Benchmark child: a bare discord.js bot doing the same I/O as Sandpiper for a mention or a thread message: open
 * the thread (new conversations), typing, the same streaming LLM request through the openai SDK (Sandpiper's own
 * request body, with this bot's messages), post at the first token, edit at the same cadence, final edit. No
 * database, no routing, no agent loop: what is left over in Sandpiper's figures is Sandpiper.
 */
import { readFileSync } from 'node:fs';
import { Client, Events, GatewayIntentBits, Partials, Routes, SnowflakeUtil, type Message } from 'discord.js';
import OpenAI from 'openai';
import { serveStats } from './bot-stats.js';
import type { BotLaunch } from './bot-launch.js';

type ChatMessage = { role: 'system' | 'user' | 'assistant'; content: string };

const launch = JSON.parse(process.argv[2] ?? '{}') as BotLaunch;
const template = JSON.parse(readFileSync(launch.requestTemplateFile, 'utf8')) as { messages: ChatMessage[] } & Record<string, unknown>;
const system = template.messages.find((message) => message.role === 'system');
const openai = new OpenAI({ apiKey: 'bench-key', baseURL: launch.llmUrl, maxRetries: 0 });
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  partials: [Partials.Channel],
  allowedMentions: { parse: [], repliedUser: false },
  rest: { api: launch.discordApiUrl, version: '10', timeout: 15_000, globalRequestsPerSecond: launch.globalRequestsPerSecond },
});
/** thread id → conversation so far (Sandpiper keeps the history in memory too). */
const threads = new Map<string, ChatMessage[]>();

async function answer(threadId: string, history: ChatMessage[], text: string): Promise<void> {
  history.push({ role: 'user', content: text });
  void client.rest.post(Routes.channelTyping(threadId)).catch(() => undefined);
  const stream = await openai.chat.completions.create({ ...template, messages: [...(system ? [system] : []), ...history], stream: true } as OpenAI.ChatCompletionCreateParamsStreaming);
  let content = '';
  let shown = '';
  let messageId: string | undefined;
  let posting: Promise<void> | undefined;
  let lastFlush = 0;
  const flush = async (): Promise<void> => {
    lastFlush = Date.now();
    const snapshot = content;
    if (messageId === undefined) messageId = ((await client.rest.post(Routes.channelMessages(threadId), { body: { content: snapshot } })) as { id: string }).id;
    else await client.rest.patch(Routes.channelMessage(threadId, messageId), { body: { content: snapshot } });
    shown = snapshot;
  };
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta.content ?? '';
    if (!delta) continue;
    content += delta;
    if (posting === undefined && Date.now() - lastFlush >= launch.editIntervalMs) posting = flush().finally(() => (posting = undefined));
  }
  await posting;
  if (shown !== content) await flush();
  history.push({ role: 'assistant', content });
}

function onMessage(message: Message): void {
  if (message.author.bot || !client.user) return;
  const history = threads.get(message.channelId);
  const mentioned = message.mentions.users.has(client.user.id);
  if (history === undefined && !mentioned) return;
  const text = message.content.replace(/<@!?\d+>/g, '').trim();
  void (async () => {
    if (history !== undefined) return answer(message.channelId, history, text);
    const thread = (await client.rest.post(Routes.threads(message.channelId, message.id), { body: { name: text.slice(0, 100), auto_archive_duration: 1440 } })) as { id: string };
    const fresh: ChatMessage[] = [];
    threads.set(thread.id, fresh);
    return answer(thread.id, fresh, text);
  })().catch((error: unknown) => process.stderr.write(`bare bot: ${String(error)}\n`));
}

client.on(Events.MessageCreate, onMessage);

/** bench:catch-up: the same history reads as Sandpiper's catch-up (pages of 100 after a day-old snowflake), then each message as if it had arrived. */
async function catchUp(channelId: string): Promise<void> {
  const channel = await client.channels.fetch(channelId);
  if (!channel?.isTextBased() || !('messages' in channel)) return;
  let after = SnowflakeUtil.generate({ timestamp: Date.now() - 86_400_000 }).toString();
  for (;;) {
    const page = [...(await channel.messages.fetch({ after, limit: 100, cache: false })).values()].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    for (const message of page) onMessage(message);
    const last = page.at(-1);
    if (!last || page.length < 100) return;
    after = last.id;
  }
}
const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
await client.login(launch.discordToken);
await ready;
if (launch.catchUpChannel !== undefined) await catchUp(launch.catchUpChannel);
serveStats(() => client.destroy());
process.send?.({ type: 'ready' });
