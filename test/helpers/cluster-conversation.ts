/**
 * One conversation of the multi-instance workload as a user drives it on Discord (guild 0 or 1, so both shards) or
 * Slack: the opening mention, waiting for an answer or a card, clicking a card (Reject opens a form that is
 * submitted), a notification with `ws_id` and the user's reply to it. Waits poll the fakes; a wait that times out
 * resolves false and the step is recorded, so one stuck conversation never stops the run.
 */
import { mintServiceToken } from '../../src/gateway/http/auth.js';
import type { FakeMessage, FakeUser } from '../fakes/fake-discord.js';
import type { FakeSlackMessage, FakeSlackUser } from '../fakes/fake-slack.js';
import { SLACK_CHANNEL, USERS, type ClusterFakes } from './cluster-fakes.js';
import { CLUSTER_JWT } from './cluster-instances.js';
import { openingText, type ConversationKind } from './cluster-model.js';
import type { Stores } from '../../src/storage/index.js';

export type Platform = 'discord' | 'slack';

/** One click as the platform saw it, to count the responses it got. */
export interface RecordedClick {
  tag: string;
  label: 'Approve' | 'Always' | 'Reject' | 'Reject form';
  platform: Platform;
  /** Discord interaction id, or Slack response_url key. */
  id: string;
  /** Slack: the click's trigger id (a modal opened with it is a Reject click's response); the envelope id of a form. */
  trigger: string;
  at: number;
}

export interface Card {
  id: string;
  discord?: FakeMessage;
  slack?: FakeSlackMessage;
}

const LABELS = { approve: 'Approve', always: 'Always', reject: 'Reject' } as const;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 50 ms; resolves its value, or undefined after `timeoutMs`. */
export async function poll<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(50);
  }
}

export class Conversation {
  readonly tag: string;
  /** Discord thread id (the opening message's id) or Slack thread ts. */
  thread = '';
  /** Where the conversation got stuck (undefined while fine). */
  stuck: string | undefined;
  readonly seenCards = new Set<string>();
  readonly clicks: RecordedClick[] = [];
  /** The card decided by the conversation's click (its call id is the one that must run once, or never). */
  decidedCall: string | undefined;

  constructor(
    readonly index: number,
    readonly kind: ConversationKind,
    readonly platform: Platform,
    readonly guild: number,
    private readonly fakes: ClusterFakes,
  ) {
    this.tag = `c${String(index).padStart(3, '0')}`;
  }

  /** The person writing this conversation, on Discord. */
  private get discordUser(): FakeUser {
    return this.fakes.discordUsers[this.index % USERS] as FakeUser;
  }

  /** The person writing this conversation, on Slack. */
  private get slackUser(): FakeSlackUser {
    return this.fakes.slackUsers[this.index % USERS] as FakeSlackUser;
  }

  /** The shard the conversation's Discord guild is on (undefined on Slack). */
  get shard(): number | undefined {
    return this.platform === 'discord' ? this.fakes.discord.shardOfGuild(this.guild) : undefined;
  }

  /** A user writes only while the bot is online there: a Discord shard nobody holds drops events. */
  async online(timeoutMs: number): Promise<boolean> {
    const shard = this.shard;
    const ok = await poll(
      () => (shard === undefined ? this.fakes.slack.connected > 0 : this.fakes.discord.gateway.holders(shard) > 0),
      timeoutMs,
    );
    return ok === true;
  }

  fail(step: string): false {
    this.stuck ??= step;
    return false;
  }

  /** Writes the opening mention; on Discord waits for the thread the bot opens from it. */
  async open(timeoutMs: number): Promise<boolean> {
    if (!(await this.online(timeoutMs))) return this.fail('platform offline before the opening message');
    const text = openingText(this.tag, this.kind);
    if (this.platform === 'slack') {
      this.thread = this.fakes.slack.userMessage(this.slackUser, SLACK_CHANNEL, `<@U0BOT> ${text}`).message.ts;
      return true;
    }
    const message = this.fakes.discord.state.injectMessage(
      this.fakes.discordChannel(this.guild),
      this.discordUser,
      text,
      true,
    );
    this.thread = message.id;
    return (
      (await poll(() => this.fakes.discord.state.channels.get(message.id), timeoutMs)) !== undefined ||
      this.fail('no thread opened')
    );
  }

  /** Resolves true once `text` was posted (anywhere) at least once. */
  async answered(text: string, timeoutMs: number): Promise<boolean> {
    return (await poll(() => this.fakes.answers(text) > 0, timeoutMs)) === true || this.fail(`no "${text}"`);
  }

  /** Approval cards of the thread that still have buttons. */
  openCards(): Card[] {
    if (this.platform === 'slack') {
      const { state } = this.fakes.slack;
      return state
        .thread(SLACK_CHANNEL, this.thread)
        .filter(
          (message) =>
            message.user === 'U0BOT' &&
            /Tool Approval Required/.test(JSON.stringify(message.blocks)) &&
            state.buttons(message).length > 0,
        )
        .map((message) => ({ id: message.ts, slack: message }));
    }
    const bot = this.fakes.discord.state.bot.id;
    return this.fakes.discord.state
      .messagesIn(this.thread)
      .filter((message) => message.author.id === bot && discordButton(message, 'Approve') !== undefined)
      .map((message) => ({ id: message.id, discord: message }));
  }

  /** What the thread shows (every message, shortened), for the report of a stuck conversation. */
  transcript(): string {
    const short = (text: string): string => text.replace(/\s+/g, ' ').slice(0, 90);
    if (this.platform === 'slack') {
      return this.fakes.slack.state
        .thread(SLACK_CHANNEL, this.thread)
        .map(
          (message) =>
            `${message.user === 'U0BOT' ? 'bot' : 'user'}: ${short(message.text || JSON.stringify(message.blocks))}`,
        )
        .join(' | ');
    }
    const bot = this.fakes.discord.state.bot.id;
    return this.fakes.discord.state
      .messagesIn(this.thread)
      .map(
        (message) =>
          `${message.author.id === bot ? 'bot' : 'user'}: ${short(message.content || JSON.stringify(message.embeds))}`,
      )
      .join(' | ');
  }

  /** Waits for an open card not seen before. */
  async newCard(timeoutMs: number, required = true): Promise<Card | undefined> {
    const card = await poll(() => this.openCards().find((candidate) => !this.seenCards.has(candidate.id)), timeoutMs);
    if (card !== undefined) this.seenCards.add(card.id);
    else if (required) this.fail('no (new) approval card');
    return card;
  }

  /** Clicks the card as the conversation's kind says (Reject: the form is submitted with feedback) and waits for the response. */
  async decide(card: Card, timeoutMs: number): Promise<boolean> {
    if (this.kind !== 'approve' && this.kind !== 'always' && this.kind !== 'reject') return false;
    if (!(await this.online(timeoutMs))) return this.fail('platform offline before the click');
    this.decidedCall = this.callOfCard(card);
    return card.discord
      ? this.decideOnDiscord(card.discord, LABELS[this.kind], timeoutMs)
      : this.decideOnSlack(card.slack as FakeSlackMessage, LABELS[this.kind], timeoutMs);
  }

  private callOfCard(card: Card): string | undefined {
    return new RegExp(`call_${this.tag}_\\d+`).exec(
      JSON.stringify(card.discord?.embeds ?? card.slack?.blocks ?? ''),
    )?.[0];
  }

  private async decideOnDiscord(
    card: FakeMessage,
    label: 'Approve' | 'Always' | 'Reject',
    timeoutMs: number,
  ): Promise<boolean> {
    const { state } = this.fakes.discord;
    const interaction = state.clickButton(card.id, discordButton(card, label) ?? '', this.discordUser);
    this.clicks.push({ tag: this.tag, label, platform: 'discord', id: interaction.id, trigger: '', at: Date.now() });
    if (label !== 'Reject')
      return (
        (await poll(() => this.fakes.discordResponses(interaction.id) > 0, timeoutMs)) === true ||
        this.fail(`no response to ${label}`)
      );
    const modal = await poll(() => state.interactions.get(interaction.id)?.modal, timeoutMs);
    if (modal === undefined) return this.fail('no Reject form');
    const submit = state.submitModal(String(modal.custom_id), this.thread, this.discordUser, {
      feedback: 'do not run it',
    });
    this.clicks.push({
      tag: this.tag,
      label: 'Reject form',
      platform: 'discord',
      id: submit.id,
      trigger: '',
      at: Date.now(),
    });
    return (
      (await poll(() => this.fakes.discordResponses(submit.id) > 0, timeoutMs)) === true ||
      this.fail('no response to the Reject form')
    );
  }

  private async decideOnSlack(
    card: FakeSlackMessage,
    label: 'Approve' | 'Always' | 'Reject',
    timeoutMs: number,
  ): Promise<boolean> {
    const { slack } = this.fakes;
    const actionId = slack.state.buttons(card).find((button) => button.text?.text === label)?.action_id ?? '';
    const { triggerId } = slack.click(card, actionId, this.slackUser);
    // The click's response_url is the one the fake issued last (clicks are made one at a time, synchronously).
    const key = [...slack.state.responseUrls.keys()].at(-1) ?? '';
    this.clicks.push({ tag: this.tag, label, platform: 'slack', id: key, trigger: triggerId, at: Date.now() });
    if (label !== 'Reject')
      return (
        (await poll(() => this.fakes.slackResponsePosts(key) > 0, timeoutMs)) === true ||
        this.fail(`no response to ${label}`)
      );
    if ((await poll(() => this.fakes.slackViews(triggerId) > 0, timeoutMs)) !== true)
      return this.fail('no Reject form');
    const envelope = slack.submitView(triggerId, this.slackUser, { feedback: 'do not run it' });
    // The form's answer ("Rejected.") goes to the click's response_url, which the form carries.
    this.clicks.push({
      tag: this.tag,
      label: 'Reject form',
      platform: 'slack',
      id: key,
      trigger: envelope,
      at: Date.now(),
    });
    return (
      (await poll(() => this.fakes.slackResponsePosts(key) > 0, timeoutMs)) === true ||
      this.fail('no response to the Reject form')
    );
  }

  /** `POST /v1/api/notify` (to `instanceUrl`) into the conversation's channel with its `ws_id`, then the user's reply. */
  async notifyAndReply(instanceUrl: string, stores: Stores, timeoutMs: number): Promise<boolean> {
    const route = await stores.routes.getRoute(
      this.platform,
      this.platform === 'slack' ? `${SLACK_CHANNEL}:${this.thread}` : this.thread,
    );
    if (!route) return this.fail('no route for the notify target');
    const channel = this.platform === 'slack' ? SLACK_CHANNEL : this.fakes.discordChannel(this.guild);
    const posted = await this.postNotify(instanceUrl, channel, route.wsId);
    if (posted === undefined) return false;
    if (!(await this.online(timeoutMs))) return this.fail('platform offline before the reply');
    const reply = `reply ${this.tag}`;
    if (this.platform === 'slack') this.fakes.slack.userMessage(this.slackUser, SLACK_CHANNEL, reply, posted);
    else this.fakes.discord.state.injectMessage(channel, this.discordUser, reply, false, posted);
    return true;
  }

  private async postNotify(instanceUrl: string, channel: string, wsId: string): Promise<string | undefined> {
    const token = await mintServiceToken(CLUSTER_JWT);
    try {
      const response = await fetch(`${instanceUrl}/v1/api/notify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          target: { channel_type: this.platform, channel_id: channel },
          message: `notify:${this.tag}`,
          ws_id: wsId,
        }),
      });
      const body = (await response.json()) as { results?: Array<{ status: string; message_id?: string }> };
      const sent = body.results?.find((result) => result.status === 'sent')?.message_id;
      return sent ?? (this.fail(`notify answered ${response.status} ${JSON.stringify(body)}`) || undefined);
    } catch (error) {
      this.fail(`notify failed: ${String(error)}`);
      return undefined;
    }
  }
}

/** custom_id of the button labelled `label` on a Discord message. */
export function discordButton(message: FakeMessage, label: string): string | undefined {
  for (const row of message.components as Array<{ components?: Array<{ label?: string; custom_id?: string }> }>) {
    const found = row.components?.find((component) => component.label === label);
    if (found?.custom_id) return found.custom_id;
  }
  return undefined;
}
