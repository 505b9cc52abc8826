/**
 * The multi-instance workload: conversations over Discord (both shards) and Slack, of which every 20 hold 4 Approve,
 * 1 Always and 1 Reject cards and 2 notify replies. With `kill`, the first half runs until every approval waits at
 * its card (live turns on every instance), then the instance holding a Discord shard and the most waiting turns is
 * SIGKILLed; the first half's cards are clicked (the killed instance's interrupted turns ask again on a new card,
 * which is the one clicked) while the second half runs. The report counts what users would notice.
 */
import type { ClusterDatabase } from './cluster-database.js';
import { Conversation, poll, type Card, type Platform } from './cluster-conversation.js';
import type { ClusterFakes } from './cluster-fakes.js';
import type { ClusterInstances } from './cluster-instances.js';
import { answerText, replyAnswerText, tagOfRequest, type ConversationKind } from './cluster-model.js';
import { checkOutcome, type KillFacts, type WorkloadReport } from './cluster-report.js';

export interface WorkloadOptions {
  conversations: number;
  /** Every conversation plain (throughput) instead of the mix. */
  plainOnly?: boolean;
  /** SIGKILL an instance half-way. */
  kill?: boolean;
  /** Longest wait of one step (default 30 s). */
  stepTimeoutMs?: number;
  /** Conversations driven at once (default 24). */
  concurrency?: number;
  /** Index of the first conversation (runs on the same fakes need tags of their own). */
  first?: number;
}

const APPROVE_AT = new Set([1, 6, 11, 16]);
const NOTIFY_AT = new Set([8, 18]);

function kindAt(index: number): ConversationKind {
  const slot = index % 20;
  if (APPROVE_AT.has(slot)) return 'approve';
  if (NOTIFY_AT.has(slot)) return 'notify';
  if (slot === 3) return 'always';
  if (slot === 13) return 'reject';
  return 'plain';
}

/** Runs `work` over `items` with at most `limit` at once. */
async function pooled<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(lanes);
}

const isApproval = (kind: ConversationKind): boolean => kind === 'approve' || kind === 'always' || kind === 'reject';

export class ClusterWorkload {
  private stepMs = 30_000;

  constructor(
    private readonly fakes: ClusterFakes,
    private readonly cluster: ClusterInstances,
    private readonly database: ClusterDatabase,
  ) {}

  /** The conversations: platform by index (Discord guild 0, Discord guild 1, Slack), kind by the pattern of 20. */
  plan(count: number, plainOnly = false, first = 0): Conversation[] {
    return Array.from({ length: count }, (_, offset) => {
      const index = first + offset;
      const where = index % 3;
      const platform: Platform = where === 2 ? 'slack' : 'discord';
      return new Conversation(
        index,
        plainOnly ? 'plain' : kindAt(index),
        platform,
        where === 2 ? 0 : where,
        this.fakes,
      );
    });
  }

  /** Opens a conversation and drives it to its resting point: answered, or (an approval) its first card shown. */
  private async toRest(conversation: Conversation): Promise<void> {
    if (!(await conversation.open(this.stepMs))) return;
    if (isApproval(conversation.kind)) {
      await conversation.newCard(this.stepMs);
      return;
    }
    if (!(await conversation.answered(answerText(conversation.tag), this.stepMs))) return;
    if (conversation.kind !== 'notify') return;
    const live = this.cluster.live();
    const target = live[conversation.index % live.length];
    if (target && (await conversation.notifyAndReply(target.url, this.database.stores, this.stepMs)))
      await conversation.answered(replyAnswerText(conversation.tag), this.stepMs);
  }

  /** Clicks an approval conversation's card (a new one when its turn was interrupted) and waits for the answer. */
  private async finish(conversation: Conversation, interrupted: boolean): Promise<void> {
    if (!isApproval(conversation.kind) || conversation.stuck !== undefined) return;
    const shown = (): Card | undefined => conversation.openCards().find((open) => conversation.seenCards.has(open.id));
    // An interrupted turn asks again on a new card; if the takeover kept the old card open instead, the user clicks that one.
    const card = interrupted ? ((await conversation.newCard(this.stepMs / 2, false)) ?? shown()) : shown();
    if (card === undefined) {
      conversation.fail('the card lost its buttons before the click');
      return;
    }
    if (await conversation.decide(card, this.stepMs))
      await conversation.answered(answerText(conversation.tag), this.stepMs);
  }

  /**
   * Waits until the only turns in flight are the `waiting` ones at a card. A turn whose answer is shown in full may
   * still be finishing (on Slack its native stream not yet stopped, so its message not yet keyed); a kill there is
   * the crash fuzzer's case (`bench:crash --takeover`, docs/design/durability.md), not this failover's.
   */
  private async onlyWaitingTurns(waiting: number): Promise<void> {
    const inFlight = async (): Promise<number> =>
      Number((await this.database.knex('turn_journal').count({ n: '*' }).first())?.['n'] ?? 0);
    await poll(async () => (await inFlight()) <= waiting, this.stepMs);
  }

  /** Which instance made each conversation's latest model request. */
  private lastRunner(): Map<string, number> {
    const runner = new Map<string, number>();
    for (const request of this.fakes.llm.requests) {
      const tag = tagOfRequest(request.body);
      const instance = this.cluster.byApiKey(request.headers.authorization);
      if (tag !== undefined && instance) runner.set(tag, instance.index);
    }
    return runner;
  }

  /** The live shard leases (shard id → holder index); empty when nothing leases shards (every instance holds every shard). */
  private async shardHolders(): Promise<Map<number, number>> {
    const rows = (await this.database.knex('shard_leases').select('shard_id', 'holder', 'expires_at')) as Array<{
      shard_id: number;
      holder: string;
      expires_at: string | number;
    }>;
    const holders = new Map<number, number>();
    for (const row of rows) {
      const instance = this.cluster.byInstanceId(row.holder);
      if (instance?.alive && Number(row.expires_at) > Date.now()) holders.set(row.shard_id, instance.index);
    }
    return holders;
  }

  /** The instance to kill: holds a shard (when shards are leased) and the most turns waiting at a card. */
  private async chooseVictim(waiting: Conversation[]): Promise<{ victim: number; shards: number[] }> {
    const holders = await this.shardHolders();
    const runner = this.lastRunner();
    const candidates =
      holders.size > 0 ? [...new Set(holders.values())] : this.cluster.live().map((instance) => instance.index);
    const load = (index: number): number =>
      waiting.filter((conversation) => runner.get(conversation.tag) === index).length;
    const victim = candidates.sort((a, b) => load(b) - load(a))[0] ?? 0;
    const shards =
      holders.size > 0
        ? [...holders].filter(([, holder]) => holder === victim).map(([shard]) => shard)
        : Array.from({ length: this.fakes.discord.shardCount }, (_, shard) => shard);
    return { victim, shards };
  }

  /** Time from the kill until the victim's shards are held again and each interrupted turn showed a new card. */
  private async measureFailover(
    killedAt: number,
    shards: number[],
    interrupted: Conversation[],
  ): Promise<Pick<KillFacts, 'failoverMs' | 'shardsMs' | 'turnsAnswered'>> {
    const deadline = killedAt + this.stepMs * 2;
    const shardBack = async (shard: number): Promise<number | undefined> => {
      // Another instance may have held the shard all along (nothing leases shards): then it never goes unheld.
      if ((await poll(() => this.fakes.discord.gateway.holders(shard) === 0, 3_000)) !== true) return killedAt;
      return (await poll(() => this.fakes.discord.gateway.holders(shard) > 0, deadline - Date.now())) === true
        ? Date.now()
        : undefined;
    };
    const turnAnswered = async (conversation: Conversation): Promise<number | undefined> => {
      // The cards shown before the kill; the driver adds the new card to `seenCards` as soon as it clicks it.
      const before = new Set(conversation.seenCards);
      const shown = await poll(
        () =>
          conversation.openCards().some((card) => !before.has(card.id)) ||
          this.fakes.answers(answerText(conversation.tag)) > 0,
        deadline - Date.now(),
      );
      return shown === true ? Date.now() : undefined;
    };
    const [shardTimes, turnTimes] = await Promise.all([
      Promise.all(shards.map(shardBack)),
      Promise.all(interrupted.map(turnAnswered)),
    ]);
    const since = (times: Array<number | undefined>): number | undefined =>
      times.some((at) => at === undefined) ? undefined : Math.max(killedAt, ...(times as number[])) - killedAt;
    return {
      failoverMs: since([...shardTimes, ...turnTimes]),
      shardsMs: since(shardTimes),
      turnsAnswered: turnTimes.filter((at) => at !== undefined).length,
    };
  }

  async run(options: WorkloadOptions): Promise<WorkloadReport> {
    this.stepMs = options.stepTimeoutMs ?? 30_000;
    const concurrency = options.concurrency ?? 24;
    const conversations = this.plan(options.conversations, options.plainOnly, options.first);
    const started = Date.now();
    const requestsBefore = this.fakes.llm.requests.length;
    if (!options.kill) {
      await pooled(conversations, concurrency, (conversation) => this.toRest(conversation));
      await pooled(conversations, concurrency, (conversation) => this.finish(conversation, false));
      return checkOutcome(this.fakes, conversations, {
        instances: this.cluster.instances.length,
        wallMs: Date.now() - started,
        modelRequests: this.fakes.llm.requests.length - requestsBefore,
      });
    }
    const half = Math.floor(conversations.length / 2);
    const [first, second] = [conversations.slice(0, half), conversations.slice(half)];
    await pooled(first, concurrency, (conversation) => this.toRest(conversation));
    const waiting = first.filter((conversation) => isApproval(conversation.kind) && conversation.stuck === undefined);
    await this.onlyWaitingTurns(waiting.length);
    const { victim, shards } = await this.chooseVictim(waiting);
    const runner = this.lastRunner();
    const interrupted = waiting.filter((conversation) => runner.get(conversation.tag) === victim);
    const killedAt = Date.now();
    await this.cluster.kill(victim);
    const failover = this.measureFailover(killedAt, shards, interrupted);
    const interruptedTags = new Set(interrupted.map((conversation) => conversation.tag));
    await Promise.all([
      pooled(first, concurrency, (conversation) => this.finish(conversation, interruptedTags.has(conversation.tag))),
      pooled(second, concurrency, async (conversation) => {
        await this.toRest(conversation);
        await this.finish(conversation, false);
      }),
    ]);
    return checkOutcome(this.fakes, conversations, {
      instances: this.cluster.instances.length,
      wallMs: Date.now() - started,
      modelRequests: this.fakes.llm.requests.length - requestsBefore,
      kill: { victim, shards, interrupted: interrupted.length, waiting: waiting.length, ...(await failover) },
    });
  }
}
