/**
 * The fakes a cluster of `sandpiper start` processes runs against, all in the test process: a sharded fake Discord
 * (two guilds, one per shard), the fake Slack and the zero-latency fake LLM scripted by `clusterModelAnswer`, plus a
 * recorder that counts what a user would see per conversation (answers posted on either platform), the responses
 * each interaction got, and how often each tool call ran (one line per run in the tool log).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FakeDiscord, type FakeUser } from '../fakes/fake-discord.js';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/fake-llm-server.js';
import { BOT_USER_ID, FakeSlack, type FakeSlackUser } from '../fakes/fake-slack.js';
import { clusterModelAnswer } from './cluster-model.js';

export const SLACK_CHANNEL = 'C0001';
/**
 * People writing: a channel's mentions are ordered per author (each opens its own thread), so one author would
 * serialize the whole workload; conversation i is written by person i % USERS, linked on both platforms.
 */
export const USERS = 10;
export const discordUserId = (person: number): string => String(400000000000000001n + BigInt(person));
export const slackUserId = (person: number): string => `U0USER${person}`;

export interface ClusterFakesOptions {
  /** Discord shards (default 2); the fake holds two guilds (one per shard with 2 shards). */
  shards?: number;
}

export class ClusterFakes {
  /** The folder the tool log lives in (not under /tmp: it must be the same file for every process). */
  readonly dir: string;
  readonly toolLog: string;
  readonly discordUsers: FakeUser[];
  readonly slackUsers: FakeSlackUser[];

  private constructor(
    readonly discord: FakeDiscord,
    readonly slack: FakeSlack,
    readonly llm: FakeLlmServer,
  ) {
    this.dir = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-cluster-'));
    this.toolLog = path.join(this.dir, 'tool-runs.log');
    writeFileSync(this.toolLog, '');
    this.discordUsers = Array.from({ length: USERS }, (_, person) =>
      discord.user(discordUserId(person), `person${person}`),
    );
    this.slackUsers = Array.from({ length: USERS }, (_, person) => slack.user(slackUserId(person), `person${person}`));
    llm.fallback = (body) => clusterModelAnswer(body, this.toolLog);
  }

  static async start(options: ClusterFakesOptions = {}): Promise<ClusterFakes> {
    const shards = options.shards ?? 2;
    const [discord, slack, llm] = await Promise.all([
      FakeDiscord.start({ shards, guilds: Math.max(2, shards) }),
      FakeSlack.start(),
      startFakeLlmServer(),
    ]);
    return new ClusterFakes(discord, slack, llm);
  }

  /** The Discord text channel of guild K (one guild per shard). */
  discordChannel(guild: number): string {
    return this.discord.channelOf(guild);
  }

  /** Shards of the fake that no live connection holds. */
  unheldShards(): number[] {
    return Array.from({ length: this.discord.shardCount }, (_, shard) => shard).filter(
      (shard) => this.discord.gateway.holders(shard) === 0,
    );
  }

  /**
   * How many times an answer with exactly this text was posted, on both platforms (1 is right). Many conversations
   * poll at once, so the counts are taken over all bot messages at most every 20 ms (`fresh` forces a new count).
   */
  answers(text: string, fresh = false): number {
    if (fresh || this.counted === undefined || Date.now() - this.counted.at > 20)
      this.counted = { at: Date.now(), counts: this.countPosts() };
    return this.counted.counts.get(text) ?? 0;
  }

  private counted: { at: number; counts: Map<string, number> } | undefined;

  private countPosts(): Map<string, number> {
    const counts = new Map<string, number>();
    const bot = this.discord.state.bot.id;
    for (const message of this.discord.state.messages.values())
      if (message.author.id === bot) counts.set(message.content, (counts.get(message.content) ?? 0) + 1);
    for (const message of this.slack.state.messages)
      if (message.user === BOT_USER_ID) counts.set(message.text, (counts.get(message.text) ?? 0) + 1);
    return counts;
  }

  /** Responses Discord received for one interaction (callback and follow-ups refused or not): 1 is right. */
  discordResponses(interactionId: string): number {
    return this.discord.requests.filter(
      (request) => request.method === 'POST' && request.path.startsWith(`/interactions/${interactionId}/`),
    ).length;
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
    for (const line of readFileSync(this.toolLog, 'utf8').split('\n'))
      if (line !== '') runs.set(line, (runs.get(line) ?? 0) + 1);
    return runs;
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.discord.close(), this.slack.close(), this.llm.close()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
