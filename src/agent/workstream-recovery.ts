/**
 * Recovery, owned by the manager (ADR 0013, 0030): the turns a previous process left unfinished, found when a
 * workstream is restored, until the gateway settles each (note, cards, resumed at most once); then the messages that
 * were waiting behind it run.
 */
import { describeError } from '../shared/errors.js';
import type { InterruptedTurn } from './interrupted-turn.js';
import type { WorkstreamEnv } from './workstream-env.js';
import type { LiveWorkstream } from './workstream.js';

export class WorkstreamRecovery {
  private readonly turns = new Map<string, InterruptedTurn>();

  constructor(private readonly env: WorkstreamEnv) {}

  /** The restore found an unfinished turn of the workstream. */
  found(turn: InterruptedTurn): void {
    this.turns.set(turn.wsId, turn);
  }

  /** The unfinished turn of a workstream, until it is finished. */
  interrupted(wsId: string): InterruptedTurn | undefined {
    return this.turns.get(wsId);
  }

  /**
   * Ends the settlement of the interrupted turn: with `resume` (and when it was not itself a resumption, has no
   * committed answer and no newer turn runs) the question is answered by a resumed turn; otherwise its journal row is
   * removed. Then the messages that were waiting behind it run (also when no turn was interrupted).
   */
  async finish(ws: LiveWorkstream, resume: boolean): Promise<'resumed' | 'noted'> {
    const turn = this.turns.get(ws.wsId);
    this.turns.delete(ws.wsId);
    if (turn !== undefined && turn.answer === undefined && resume && !turn.wasResumed && !ws.isBusy() && !ws.isClosed) {
      // The resumed turn's journal row replaces the interrupted turn's row when it is written (begin supersedes it).
      ws.resumeInterrupted();
      return 'resumed';
    }
    if (turn !== undefined) {
      await this.env.stores.turnJournal.remove(turn.turnId).catch((error: unknown) => {
        this.env.logger.error({ wsId: ws.wsId, err: describeError(error) }, 'removing a settled turn failed');
      });
    }
    ws.runWaiting();
    return 'noted';
  }
}
