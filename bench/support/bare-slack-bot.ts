/**
 * Slack benchmark child: a bare bolt app (Socket Mode) doing the same I/O as Sandpiper for a mention or a thread
 * message: the same streaming LLM request through the openai SDK (Sandpiper's own request body, with this app's
 * messages), then at the first token and at the same cadence either chat.startStream / appendStream and a final
 * appendStream + stopStream (`stream`), or chat.postMessage and chat.update (`edit`). No database, no routing, no
 * agent loop: what is left over in Sandpiper's figures is Sandpiper.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel, SocketModeReceiver } from '@slack/bolt';
import { bareAnswerer, type ChatMessage } from './bare-answer.js';
import { serveStats } from './bot-stats.js';
import type { SlackBotLaunch } from './slack-bot-launch.js';

interface RawEvent {
  channel?: string;
  user?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  subtype?: string;
  bot_id?: string;
}

const launch = JSON.parse(process.argv[2] ?? '{}') as SlackBotLaunch;
const streamAnswer = bareAnswerer(launch);
const receiver =
  launch.delivery === 'http'
    ? new HTTPReceiver({ signingSecret: launch.signingSecret, endpoints: '/slack/events', logLevel: LogLevel.ERROR })
    : new SocketModeReceiver({
        appToken: launch.appToken,
        logLevel: LogLevel.ERROR,
        installerOptions: { clientOptions: { slackApiUrl: launch.slackApiUrl } },
      });
const app = new App({
  token: launch.botToken,
  receiver,
  logLevel: LogLevel.ERROR,
  tokenVerificationEnabled: false,
  clientOptions: {
    slackApiUrl: launch.slackApiUrl,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
    rejectRateLimitedCalls: true,
    timeout: 15_000,
  },
});
/** `<channel>:<thread_ts>` → conversation so far (Sandpiper keeps the history in memory too). */
const threads = new Map<string, ChatMessage[]>();
let teamId = '';

/** Shows `content` so far: starts or appends to the stream, or posts then edits the message. */
async function show(
  channel: string,
  threadTs: string,
  user: string,
  ts: string | undefined,
  delta: string,
  content: string,
): Promise<string> {
  if (launch.mode === 'stream') {
    if (ts !== undefined) return (await app.client.chat.appendStream({ channel, ts, markdown_text: delta }), ts);
    return String(
      (
        await app.client.chat.startStream({
          channel,
          thread_ts: threadTs,
          markdown_text: delta,
          recipient_user_id: user,
          recipient_team_id: teamId,
        })
      ).ts,
    );
  }
  if (ts !== undefined) return (await app.client.chat.update({ channel, ts, text: content, blocks: [] }), ts);
  return String(
    (
      await app.client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text: content,
        unfurl_links: false,
        unfurl_media: false,
      })
    ).ts,
  );
}

async function answer(
  channel: string,
  threadTs: string,
  user: string,
  history: ChatMessage[],
  text: string,
): Promise<void> {
  let ts: string | undefined;
  await streamAnswer(history, text, async (delta, content) => {
    ts = await show(channel, threadTs, user, ts, delta, content);
  });
  if (launch.mode === 'stream' && ts !== undefined) await app.client.chat.stopStream({ channel, ts });
}

const fail = (error: unknown): void => void process.stderr.write(`bare slack app: ${String(error)}\n`);
const strip = (text: string): string => text.replace(/<@[A-Z0-9]+>/g, '').trim();

app.event('app_mention', async ({ event }) => {
  const e = event as RawEvent;
  if (e.thread_ts || !e.channel || !e.ts || !e.user) return;
  const fresh: ChatMessage[] = [];
  threads.set(`${e.channel}:${e.ts}`, fresh);
  void answer(e.channel, e.ts, e.user, fresh, strip(e.text ?? '')).catch(fail);
});
app.event('message', async ({ event }) => {
  const e = event as RawEvent;
  if (e.subtype || e.bot_id || !e.thread_ts || !e.channel || !e.user) return;
  const history = threads.get(`${e.channel}:${e.thread_ts}`);
  if (history) void answer(e.channel, e.thread_ts, e.user, history, strip(e.text ?? '')).catch(fail);
});

teamId = String((await app.client.auth.test()).team_id ?? '');
const server = (launch.delivery === 'http' ? await app.start({ port: 0, host: '127.0.0.1' }) : await app.start()) as
  Server | undefined;
serveStats(async () => {
  await app.stop();
});
const port = launch.delivery === 'http' ? (server?.address() as AddressInfo | null)?.port : undefined;
process.send?.({ type: 'ready', ...(port === undefined ? {} : { url: `http://127.0.0.1:${port}` }) });
