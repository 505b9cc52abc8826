/**
 * At start-up, every turn the previous process left unfinished is settled in its thread (ADR 0013): the live answer
 * is edited to the text the history keeps plus a note, running tool cards and approved cards say "interrupted", and
 * the turn is resumed once (`gateway.resume_interrupted`), rendered into the same thread. Messages that were waiting
 * behind it (or behind a turn that had ended) then run there too (ADR 0030).
 */
import type { InterruptedTurn, WorkstreamManager } from '../agent/index.js';
import type { ChannelAdapter } from '../channels/channel-adapter.js';
import { describeError } from '../shared/errors.js';
import { INTERRUPTED_TOOL_RESULT } from '../shared/interruption.js';
import type { Logger } from '../shared/logger.js';
import type { Stores } from '../storage/stores.js';
import type { ApprovalDesk } from './approvals.js';
import { answerKey, LiveMessage } from './live-message.js';
import { parseLiveState, type LiveState } from './live-state.js';
import type { Router } from './router.js';
import type { ConversationRendering } from './conversations.js';

/** The note of a turn that is not resumed (resuming is off, or it was a resumption itself). */
export const INTERRUPTED_NOTE = '*Interrupted by a restart.*';
/** The note of a turn that is resumed: the answer follows in a new message. */
export const RESUMING_NOTE = '*Interrupted by a restart; answering again below.*';

export interface InterruptedTurnsDeps {
  manager: WorkstreamManager;
  stores: Stores;
  router: Router;
  adapters: ReadonlyMap<string, ChannelAdapter>;
  desk: ApprovalDesk;
  logger: Logger;
  signal: AbortSignal;
  /** `gateway.resume_interrupted`. */
  resume: boolean;
  /** Makes sure the workstream is live and rendered into its thread while this acts on it (restores it after a restart). */
  conversations: ConversationRendering;
}

/**
 * Settles every interrupted turn (or only those of `onlyWsId`, a workstream taken over from a dead instance); returns
 * how many were settled and how many resumed. Never throws.
 */
export async function settleInterruptedTurns(
  deps: InterruptedTurnsDeps,
  onlyWsId?: string,
): Promise<{ settled: number; resumed: number }> {
  let settled = 0;
  let resumed = 0;
  const only = onlyWsId === undefined ? undefined : async (wsId: string) => wsId === onlyWsId;
  const turns = await deps.manager.interruptedTurns(only).catch((error: unknown) => {
    deps.logger.error({ error: describeError(error) }, 'listing interrupted turns failed');
    return [] as InterruptedTurn[];
  });
  for (const turn of turns) {
    try {
      if ((await settleOne(deps, turn)) === 'resumed') resumed += 1;
      settled += 1;
    } catch (error) {
      deps.logger.error(
        { wsId: turn.wsId, turnId: turn.turnId, error: describeError(error) },
        'settling an interrupted turn failed',
      );
    }
  }
  // What a route records of a turn with no journal row (one that ended) is left as it is: only the record of an
  // interrupted turn is read (`settleOne`), and the next turn in the thread writes over it.
  const settledWs = new Set(turns.map((turn) => turn.wsId));
  // Messages left waiting behind a turn that ended (or in a workstream waiting for a click) run now, rendered (ADR 0030).
  const waiting = await deps.manager.waitingWorkstreams(only).catch((error: unknown) => {
    deps.logger.error({ error: describeError(error) }, 'listing waiting messages failed');
    return [] as string[];
  });
  for (const wsId of waiting.filter((id) => !settledWs.has(id))) await runWaiting(deps, wsId);
  if (settled > 0) deps.logger.info({ settled, resumed }, 'interrupted turns settled');
  return { settled, resumed };
}

async function settleOne(deps: InterruptedTurnsDeps, turn: InterruptedTurn): Promise<'resumed' | 'noted'> {
  const home = await deps.router.homeOf(turn.wsId);
  const adapter = home === undefined ? undefined : deps.adapters.get(home.platform);
  if (home !== undefined && adapter !== undefined) {
    const route = await deps.stores.routes.getRoute(home.platform, home.channelId);
    const recorded = parseLiveState(route?.liveState ?? null);
    const live = recorded?.turnId === turn.turnId ? recorded : undefined;
    if (turn.answer !== undefined) {
      await showAnswer(deps, adapter, home.channelId, turn, live);
    } else {
      const note = deps.resume && !turn.wasResumed ? RESUMING_NOTE : INTERRUPTED_NOTE;
      await showNote(deps, adapter, home.channelId, turn, live, note);
    }
    await markToolCards(deps, adapter, home.channelId, live);
    await deps.desk.markInterrupted(turn.turnId, turn.interruptedCallIds);
    await clearIfUnchanged(deps, home.platform, home.channelId, route?.liveState ?? null);
  }
  return deps.conversations.renderWhile(turn.wsId, () => deps.manager.finishInterrupted(turn.wsId, deps.resume));
}

async function runWaiting(deps: InterruptedTurnsDeps, wsId: string): Promise<void> {
  try {
    await deps.conversations.renderWhile(wsId, () => deps.manager.finishInterrupted(wsId, false));
  } catch (error) {
    deps.logger.error({ wsId, error: describeError(error) }, 'running the waiting messages failed');
  }
}

/**
 * A committed answer whose end was not shown: edited into the messages the thread shows of it, or, when none was
 * recorded, posted where the adapter keys answer posts (`answerPosts`: a post that landed unrecorded is found and
 * edited, not doubled); nothing when its final edit was recorded as landed. The text is the committed one, never
 * generated again.
 */
async function showAnswer(
  deps: InterruptedTurnsDeps,
  adapter: ChannelAdapter,
  channelId: string,
  turn: InterruptedTurn,
  live: LiveState | undefined,
): Promise<void> {
  const answer = turn.answer ?? '';
  if (answer.trim() === '') return;
  const recorded =
    live !== undefined && live.segment.length > 0 && adapter.capabilities.canEdit ? live.segment : undefined;
  if (recorded === undefined && adapter.capabilities.answerPosts !== true) {
    // No message of the answer is recorded, and a post could double one that landed unrecorded: the thread is left as
    // it is; the history holds the answer.
    deps.logger.warn(
      { channelId, turnId: turn.turnId },
      'a committed answer has no recorded message; it is not posted again',
    );
    return;
  }
  // Posted with the live renderer's keys, marked as maybe made before: a post that landed before the kill but was not
  // recorded is found and edited, not doubled.
  const message = new LiveMessage({
    adapter,
    channelId,
    logger: deps.logger,
    signal: deps.signal,
    key: answerKey(turn.turnId, true),
  });
  if (recorded !== undefined) {
    await endStreams(deps, adapter, channelId, recorded);
    message.adopt(recorded);
  }
  message.append(answer);
  message.seal();
  if (!(await message.sync())) deps.logger.warn({ channelId }, 'showing a committed answer after a restart failed');
}

/** The live answer shows the kept text and the note; without one (nothing streamed yet) the note is a new message. */
async function showNote(
  deps: InterruptedTurnsDeps,
  adapter: ChannelAdapter,
  channelId: string,
  turn: InterruptedTurn,
  live: LiveState | undefined,
  note: string,
): Promise<void> {
  if (live !== undefined && live.segment.length > 0 && turn.partialText.trim() !== '' && adapter.capabilities.canEdit) {
    const message = new LiveMessage({ adapter, channelId, logger: deps.logger, signal: deps.signal });
    await endStreams(deps, adapter, channelId, live.segment);
    message.adopt(live.segment);
    message.append(`${turn.partialText}\n\n${note}`);
    if (await message.sync()) return;
  }
  await adapter.post(channelId, { kind: 'text', text: note }, deps.signal);
}

/**
 * Ends the native streams the killed process left open on the recorded messages, so they can be edited. A stream that
 * cannot be ended is logged, and its message is edited anyway (the edit says for itself whether it landed).
 */
async function endStreams(
  deps: InterruptedTurnsDeps,
  adapter: ChannelAdapter,
  channelId: string,
  messageIds: readonly string[],
): Promise<void> {
  const end = adapter.features.streaming?.end;
  if (end === undefined) return;
  for (const messageId of messageIds) {
    await end(channelId, messageId, deps.signal).catch((error: unknown) => {
      deps.logger.warn({ channelId, messageId, error: describeError(error) }, 'ending a stream left open failed');
    });
  }
}

async function markToolCards(
  deps: InterruptedTurnsDeps,
  adapter: ChannelAdapter,
  channelId: string,
  live: LiveState | undefined,
): Promise<void> {
  for (const card of Object.values(live?.tools ?? {})) {
    const message = {
      kind: 'tool-call',
      name: card.name,
      preview: card.preview,
      status: 'error',
      output: INTERRUPTED_TOOL_RESULT,
    } as const;
    await adapter.edit(channelId, card.messageId, message, deps.signal).catch((error: unknown) => {
      deps.logger.warn({ error: describeError(error) }, 'marking a tool card interrupted failed');
    });
  }
}

/** Clears what the previous process recorded, unless a turn of this process has written its own since. */
async function clearIfUnchanged(
  deps: InterruptedTurnsDeps,
  platform: string,
  channelId: string,
  recorded: string | null,
): Promise<void> {
  if (recorded === null) return;
  try {
    const current = await deps.stores.routes.getRoute(platform, channelId);
    if (current?.liveState === recorded) await deps.stores.routes.setLiveState(platform, channelId, null);
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'clearing a recorded live message failed');
  }
}
