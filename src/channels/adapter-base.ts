/**
 * What every platform adapter does the same way around its client library: the connection state it reports, handing
 * platform events to the gateway's handler, and best-effort calls whose failure only matters to the debug log.
 */
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { AdapterState, InboundEvent, InboundHandler } from './channel-adapter.js';

/** What an interaction that arrives before the gateway's handler is installed is told. */
export const NOT_READY = 'Starting up, try again in a moment.';

export abstract class AdapterBase {
  protected current: AdapterState = 'idle';
  protected handler: InboundHandler | undefined;
  /** Set by a drain (`stopInbound`): new events are left to the platform to give to another instance. */
  protected inboundStopped = false;

  protected constructor(
    protected readonly logger: Logger,
    private readonly label: string,
  ) {}

  state(): AdapterState {
    return this.current;
  }

  /**
   * A connection change reported by the client library. Ignored before the start connected (the start decides) and
   * after a stop or a failed start; while connecting only `connected` counts.
   */
  protected setState(state: AdapterState): void {
    if (this.current === 'stopped' || this.current === 'idle' || this.current === 'failed') return;
    if (this.current === 'connecting' && state !== 'connected') return;
    this.current = state;
  }

  /**
   * Hands an event to the gateway. After a drain began nothing new is handled (a rate-limit hint still is); an
   * interaction that arrives without a handler (starting up) is told so rather than left without an answer.
   */
  protected deliver(event: InboundEvent): void {
    if (this.inboundStopped && event.type !== 'rate-limited') return;
    const handler = this.handler;
    if (!handler) {
      if (this.current !== 'stopped' && (event.type === 'command' || event.type === 'action' || event.type === 'form')) {
        void event.respond.reply(NOT_READY).catch(() => undefined);
      }
      return;
    }
    void handler(event).catch((error: unknown) => this.logger.error({ error: describeError(error) }, 'inbound handler failed'));
  }

  /** Runs a call whose failure the user need not see (typing, reactions, archiving); logged at debug. */
  protected async bestEffort(what: string, call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.logger.debug({ what, error: describeError(error) }, `${this.label} best-effort call failed`);
    }
  }
}
