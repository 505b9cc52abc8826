/**
 * Benchmark child: a bare discord.js bot doing the same I/O as Sandpiper for a mention or a thread message: open
 * the thread (new conversations), typing (sent, as Sandpiper sends it, once the model request is under way), the
 * same streaming LLM request through the openai SDK (Sandpiper's own request body, with this bot's messages), post
 * at the first token, edit at the same cadence, final edit. No
 * database, no routing, no agent loop: what is left over in Sandpiper's figures is Sandpiper.
 */
import { Client, Events, GatewayIntentBits, Partials, Routes, SnowflakeUtil, type Message } from 'discord.js';
import { bareAnswerer, type ChatMessage } from './bare-answer.js';
import { serveStats } from './bot-stats.js';
import type { BotLaunch } from './bot-launch.js';

const launch = JSON.parse(process.argv[2] ?? '{}') as BotLaunch;
const streamAnswer = bareAnswerer(launch);
const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent],
  partials: [Partials.Channel],
  allowedMentions: { parse: [], repliedUser: false },
  rest: {
    api: launch.discordApiUrl,
    version: '10',
    timeout: 15_000,
    globalRequestsPerSecond: launch.globalRequestsPerSecond,
  },
});
/** thread id → conversation so far (Sandpiper keeps the history in memory too). */
const threads = new Map<string, ChatMessage[]>();

async function answer(threadId: string, history: ChatMessage[], text: string): Promise<void> {
  // As Sandpiper does: the indicator goes out once the model request is under way (it is cosmetic; the request is not).
  setImmediate(() => void client.rest.post(Routes.channelTyping(threadId)).catch(() => undefined));
  let messageId: string | undefined;
  await streamAnswer(history, text, async (_delta, content) => {
    if (messageId === undefined)
      messageId = ((await client.rest.post(Routes.channelMessages(threadId), { body: { content } })) as { id: string })
        .id;
    else await client.rest.patch(Routes.channelMessage(threadId, messageId), { body: { content } });
  });
}

function onMessage(message: Message): void {
  if (message.author.bot || !client.user) return;
  const history = threads.get(message.channelId);
  const mentioned = message.mentions.users.has(client.user.id);
  if (history === undefined && !mentioned) return;
  const text = message.content.replace(/<@!?\d+>/g, '').trim();
  void (async () => {
    if (history !== undefined) return answer(message.channelId, history, text);
    const thread = (await client.rest.post(Routes.threads(message.channelId, message.id), {
      body: { name: text.slice(0, 100), auto_archive_duration: 1440 },
    })) as { id: string };
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
    const page = [...(await channel.messages.fetch({ after, limit: 100, cache: false })).values()].sort((a, b) =>
      BigInt(a.id) < BigInt(b.id) ? -1 : 1,
    );
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
