/**
 * The fakes a cluster of `sandpiper start` processes runs against, all in the test process: a sharded fake Discord
 * (two guilds, one per shard), the fake Slack and the zero-latency fake LLM scripted by `clusterModelAnswer`, plus a
 * recorder that counts what a user would see per conversation (answers posted on either platform), the responses
 * each interaction got, and how often each tool call ran (one line per run in the tool log).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeDiscord, type FakeMessage, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackMessage, type FakeSlackUser } from '../fakes/fake-slack.js';
import { clusterModelAnswer } from './cluster-model.js';

export const SLACK_CHANNEL = 'C0001';
export const DISCORD_USER_ID = '400000000000000001';
export const SLACK_USER_ID = 'U0ALICE';

export interface ClusterFakesOptions {
  /** Discord shards (default 2); the fake holds two guilds (one per shard with 2 shards). */
  shards?: number;
}

export class ClusterFakes {
  /** The folder the tool log lives in (not under /tmp: it must be the same file for every process). */
  readonly dir: string;
  readonly toolLog: string;
  readonly discordUser: FakeUser;
  readonly slackUser: FakeSlackUser;

  private constructor(readonly discord: FakeDiscord, readonly slack: FakeSlack, readonly llm: FakeLlmServer) {
    this.dir = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-cluster-'));
    this.toolLog = path.join(this.dir, 'tool-runs.log');
    writeFileSync(this.toolLog, '');
    this.discordUser = discord.user(DISCORD_USER_ID, 'alice');
    this.slackUser = slack.user(SLACK_USER_ID, 'alice');
    llm.fallback = (body) => clusterModelAnswer(body, this.toolLog);
  }

  static async start(options: ClusterFakesOptions = {}): Promise<ClusterFakes> {
    const shards = options.shards ?? 2;
    const [discord, slack, llm] = await Promise.all([FakeDiscord.start({ shards, guilds: Math.max(2, shards) }), FakeSlack.start(), startFakeLlmServer()]);
    return new ClusterFakes(discord, slack, llm);
  }

  /** The Discord text channel of guild K (one guild per shard). */
  discordChannel(guild: number): string {
    return this.discord.channelOf(guild);
  }

  /** Shards of the fake that no live connection holds. */
  unheldShards(): number[] {
    return Array.from({ length: this.discord.shardCount }, (_, shard) => shard).filter((shard) => this.discord.gateway.holders(shard) === 0);
  }

  /** Bot messages on Discord whose text is exactly `text` (anywhere: threads, channels). */
  discordPosts(text: string): FakeMessage[] {
    const bot = this.discord.state.bot.id;
    return [...this.discord.state.messages.values()].filter((message) => message.author.id === bot && message.content === text);
  }

  /** Bot messages on Slack whose text is exactly `text`. */
  slackPosts(text: string): FakeSlackMessage[] {
    return this.slack.state.messages.filter((message) => message.user === BOT_USER_ID && message.text === text);
  }

  /** How many times an answer with exactly this text was posted, on both platforms (1 is right). */
  answers(text: string): number {
    return this.discordPosts(text).length + this.slackPosts(text).length;
  }

  /** Responses Discord received for one interaction (callback and follow-ups refused or not): 1 is right. */
  discordResponses(interactionId: string): number {
    return this.discord.requests.filter((request) => request.method === 'POST' && request.path.startsWith(`/interactions/${interactionId}/`)).length;
  }

  /** Private answers posted to one Slack response_url (a click's "Approved.", or the form's "Rejected."). */
  slackResponsePosts(responseKey: string): number {
    return this.slack.state.ephemerals.filter((entry) => entry.via === responseKey).length;
  }

  /** Modals opened with one Slack trigger id (a Reject click's response). */
  slackViews(triggerId: string): number {
    return this.slack.state.views.filter((view) => view.triggerId === triggerId).length;
  }

  /** How often each call id ran (lines in the tool log). */
  toolRuns(): Map<string, number> {
    const runs = new Map<string, number>();
    for (const line of readFileSync(this.toolLog, 'utf8').split('\n')) if (line !== '') runs.set(line, (runs.get(line) ?? 0) + 1);
    return runs;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.discord.close(), this.slack.close(), this.llm.close()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
