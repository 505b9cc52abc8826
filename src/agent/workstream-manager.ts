/** Owns the live workstreams: creation, restore from the database, approvals, close, idle eviction, shutdown. */
import { describeError, GatewayError } from '../shared/errors.js';
import { newHexId } from '../shared/ids.js';
import type { WorkstreamRow } from '../storage/workstream-store.js';
import type { InterruptedTurn } from './interrupted-turn.js';
import { ApprovalWaiters } from './approval-waiters.js';
import { DEFAULT_TOOL_SEARCH_SETTINGS } from './search/tool-search.js';
import { retryingStreamModel } from './turn/default-stream-model.js';
import type {
  ApprovalDecisionInput,
  DecisionCheck,
  ResolveOutcome,
  RouteTarget,
  Workstream,
  WorkstreamManager,
} from './workstream-api.js';
import { checkApprovalRow, resolveApprovalRow } from './workstream-approvals.js';
import type { WorkstreamEnv, WorkstreamManagerOptions } from './workstream-env.js';
import { instantiate, restoreWorkstream } from './workstream-restore.js';
import type { LiveWorkstream } from './workstream.js';
import { TurnJournal } from './turn-journal.js';
import { WorkstreamWrites } from './workstream-writes.js';
import { WorkstreamRecovery } from './workstream-recovery.js';

export class DefaultWorkstreamManager implements WorkstreamManager {
  private readonly env: WorkstreamEnv;
  private readonly live = new Map<string, LiveWorkstream>();
  private readonly restoring = new Map<string, Promise<LiveWorkstream | undefined>>();
  /** Turns a previous process left unfinished, until the gateway settles them. */
  private readonly recovery: WorkstreamRecovery;
  private stopped = false;

  constructor(options: WorkstreamManagerOptions) {
    const now = options.now ?? Date.now;
    this.env = {
      agent: options.agent,
      stores: options.stores,
      resolveModel: options.resolveModel,
      defaultModelAlias: options.defaultModelAlias,
      toolSources: options.toolSources,
      logger: options.logger,
      streamModel: options.streamModel ?? retryingStreamModel,
      systemPromptSections: options.systemPromptSections ?? [],
      toolSearch: options.toolSearch ?? DEFAULT_TOOL_SEARCH_SETTINGS,
      waiters: new ApprovalWaiters(),
      writes: new WorkstreamWrites({ store: options.stores.workstreams, logger: options.logger, now }),
      journal: new TurnJournal({ store: options.stores.turnJournal, logger: options.logger }),
      now,
      readopt: (ws) => this.readopt(ws),
      ...(options.budget === undefined ? {} : { budget: options.budget }),
    };
    this.recovery = new WorkstreamRecovery(this.env);
  }

  async create(input: Parameters<WorkstreamManager['create']>[0]): Promise<Workstream> {
    // After shutdown nothing may start a turn: its message would not be stored, and nobody would run it.
    if (this.stopped) throw new GatewayError('CONFLICT', 'the agent is shutting down');
    const alias =
      input.modelAlias !== undefined && this.env.resolveModel(input.modelAlias)
        ? input.modelAlias
        : this.env.defaultModelAlias;
    const fields = { wsId: newHexId(), userId: input.ownerUserId, name: input.name, modelAlias: alias };
    const ws =
      input.route === undefined
        ? await instantiate(this.env, await this.env.stores.workstreams.create(fields), false)
        : await this.createRouted(fields, input.route);
    this.live.set(ws.wsId, ws);
    // The new workstream is about to be used by the caller: never evict it here.
    if (this.live.size > this.env.agent.max_active_workstreams) this.evictIdleExcept(ws.wsId);
    return ws;
  }

  /** The row and its route commit in the background (see WorkstreamManager.create); the live object is ready at once. */
  private async createRouted(fields: NewWorkstream, route: RouteTarget): Promise<LiveWorkstream> {
    const stored = this.env.stores.workstreams.create(fields, { route }).then(() => undefined);
    this.env.writes.afterCreation(stored);
    const ws = await instantiate(this.env, draftRow(fields, this.env.now()), false, stored);
    stored.catch((error: unknown) => {
      if (this.live.get(ws.wsId) === ws) this.live.delete(ws.wsId);
      this.env.logger.error(
        { wsId: ws.wsId, err: describeError(error) },
        'storing a new workstream failed; it is dropped',
      );
    });
    return ws;
  }

  async get(wsId: string): Promise<Workstream | undefined> {
    return this.getLive(wsId);
  }

  /** The live object, restoring it once even when asked concurrently. */
  async getLive(wsId: string): Promise<LiveWorkstream | undefined> {
    const existing = this.live.get(wsId);
    if (existing !== undefined) {
      existing.lastActiveMs = this.env.now();
      return existing;
    }
    let pending = this.restoring.get(wsId);
    if (pending === undefined) {
      pending = restoreWorkstream(this.env, wsId, (turn) => this.recovery.found(turn)).then((ws) => {
        // An evicted object taken back while this restore ran wins; the restored copy is dropped unused.
        const readopted = this.live.get(wsId);
        if (readopted !== undefined) return readopted;
        if (ws !== undefined && !this.stopped) this.live.set(wsId, ws);
        // Restored after shutdown: it refuses messages like the live ones that were stopped.
        else ws?.stopForShutdown();
        return ws;
      });
      this.restoring.set(wsId, pending);
      void pending.finally(() => this.restoring.delete(wsId)).catch(() => undefined);
    }
    return pending;
  }

  /** An evicted object got a message: it becomes live again unless another object took its place meanwhile. */
  private readopt(ws: LiveWorkstream): LiveWorkstream {
    const current = this.live.get(ws.wsId);
    if (current !== undefined && current !== ws) return current;
    ws.setEvicted(false);
    ws.lastActiveMs = this.env.now();
    if (!this.stopped) this.live.set(ws.wsId, ws);
    else ws.stopForShutdown();
    return ws;
  }

  resolveApproval(approvalId: string, decision: ApprovalDecisionInput): Promise<ResolveOutcome> {
    return resolveApprovalRow(this.env, (wsId) => this.getLive(wsId), approvalId, decision);
  }

  /** Whether the workstream is in memory here (running, waiting or idle but not evicted). */
  isLive(wsId: string): boolean {
    return this.live.has(wsId);
  }

  /**
   * This instance no longer runs the workstream (its lease went to another instance): its turn stops as at a shutdown
   * (the journal row stays for the new holder) and the object leaves memory without touching the row.
   */
  forget(wsId: string): boolean {
    const ws = this.live.get(wsId);
    if (ws === undefined) return false;
    this.live.delete(wsId);
    ws.stopForShutdown();
    return true;
  }

  checkApproval(
    approvalId: string,
    decider: Pick<ApprovalDecisionInput, 'decidedBy' | 'isAdmin'>,
  ): Promise<DecisionCheck> {
    return checkApprovalRow(this.env, approvalId, decider);
  }

  async close(wsId: string, reason: string): Promise<boolean> {
    const row = await this.env.stores.workstreams.get(wsId);
    if (row === undefined || row.state === 'closed') return false;
    const ws = this.live.get(wsId);
    this.live.delete(wsId);
    await ws?.close(reason);
    // Its waiting messages never run (ADR 0030).
    await this.env.journal.drop(wsId);
    // A queued state change of the last turn must not land after (and undo) the `closed` below.
    await this.env.writes.flush();
    await this.env.stores.approvals.cancelPending(wsId);
    await this.env.stores.workstreams.update(wsId, { state: 'closed' });
    return true;
  }

  async interruptedTurns(only?: (wsId: string) => Promise<boolean>): Promise<InterruptedTurn[]> {
    const rows = await this.env.stores.turnJournal.list();
    const turns: InterruptedTurn[] = [];
    for (const row of rows) {
      if (only !== undefined && !(await only(row.wsId))) continue;
      const ws = await this.getLive(row.wsId).catch((error: unknown) => {
        this.env.logger.error(
          { wsId: row.wsId, err: describeError(error) },
          'restoring an interrupted workstream failed',
        );
        return null;
      });
      // A closed or deleted workstream has nothing to resume; its row would only be read again at every start.
      if (ws === undefined) await this.env.stores.turnJournal.remove(row.turnId);
      const turn = ws === undefined ? undefined : this.recovery.interrupted(row.wsId);
      if (turn !== undefined && turn.turnId === row.turnId) turns.push(turn);
    }
    return turns;
  }

  async waitingWorkstreams(only?: (wsId: string) => Promise<boolean>): Promise<string[]> {
    const waiting: string[] = [];
    for (const wsId of await this.env.stores.turnJournal.queuedWorkstreams()) {
      if (only === undefined || (await only(wsId))) waiting.push(wsId);
    }
    return waiting;
  }

  async finishInterrupted(wsId: string, resume: boolean): Promise<'resumed' | 'noted'> {
    const ws = await this.getLive(wsId);
    if (ws !== undefined) return this.recovery.finish(ws, resume);
    // Closed or deleted: messages still waiting in it never run, and are not read again at every start.
    await this.env.journal.drop(wsId);
    return 'noted';
  }

  evictIdle(): Promise<number> {
    return Promise.resolve(this.evictIdleExcept(undefined));
  }

  /**
   * Drops idle workstreams (no turn running, none queued, no approval awaited) that were idle longer than
   * `idle_evict_minutes`, and the least recently active idle ones beyond `max_active_workstreams`.
   */
  private evictIdleExcept(keep: string | undefined): number {
    const now = this.env.now();
    const maxIdleMs = this.env.agent.idle_evict_minutes * 60_000;
    const idle = [...this.live.values()]
      .filter((ws) => ws.wsId !== keep && !ws.isBusy())
      .sort((a, b) => a.lastActiveMs - b.lastActiveMs);
    let excess = this.live.size - this.env.agent.max_active_workstreams;
    let evicted = 0;
    for (const ws of idle) {
      if (now - ws.lastActiveMs < maxIdleMs && excess <= 0) continue;
      this.live.delete(ws.wsId);
      ws.setEvicted(true);
      excess--;
      evicted++;
    }
    if (evicted > 0) this.env.logger.debug({ evicted, active: this.live.size }, 'idle workstreams evicted');
    return evicted;
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    const all = [...this.live.values()];
    for (const ws of all) ws.stopForShutdown();
    await Promise.allSettled(all.map((ws) => ws.settle()));
    this.live.clear();
    await this.env.writes.flush();
    await this.env.journal.flush();
    this.env.journal.stop();
  }

  stats(): { active: number; running: number } {
    let running = 0;
    for (const ws of this.live.values()) if (ws.isBusy()) running++;
    return { active: this.live.size, running };
  }
}

type NewWorkstream = Pick<WorkstreamRow, 'wsId' | 'userId' | 'name' | 'modelAlias'>;

/** The row a new workstream will have once its insert commits (the store's defaults). */
function draftRow(fields: NewWorkstream, nowMs: number): WorkstreamRow {
  const now = new Date(nowMs).toISOString();
  return {
    ...fields,
    title: '',
    state: 'idle',
    autoApproveTools: [],
    inputTokens: 0,
    outputTokens: 0,
    nodeId: '',
    created: now,
    updated: now,
  };
}

export function createWorkstreamManager(options: WorkstreamManagerOptions): DefaultWorkstreamManager {
  return new DefaultWorkstreamManager(options);
}
