/**
 * What a thread shows of the turn in flight, recorded in `channel_routes.live_state` so a restart can finish it: the
 * messages of the live answer segment and the tool cards still marked running (ADR 0013). Written only when a message
 * is added or a segment or card ends, never per edit, on one ordered chain per thread.
 */
import { z } from 'zod';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { safeParseJson } from '../shared/json.js';

const toolCardSchema = z.object({ messageId: z.string(), name: z.string(), preview: z.string() });

const liveStateSchema = z.object({
  v: z.literal(1),
  turnId: z.string(),
  /** Message ids of the answer segment being streamed, in order. */
  segment: z.array(z.string()),
  /** Tool cards posted as running, by call id. */
  tools: z.record(z.string(), toolCardSchema),
});

export type LiveState = z.infer<typeof liveStateSchema>;
export type LiveToolCard = z.infer<typeof toolCardSchema>;

/** The recorded state, or undefined for none or an unreadable value. */
export function parseLiveState(text: string | null): LiveState | undefined {
  if (text === null) return undefined;
  const parsed = safeParseJson(text);
  if (!parsed.ok) return undefined;
  const state = liveStateSchema.safeParse(parsed.value);
  return state.success ? state.data : undefined;
}

export class LiveStateRecorder {
  private state: LiveState | undefined;
  private written = false;
  private chain: Promise<void> = Promise.resolve();
  /** The value waiting for the save in flight; a newer one replaces it (only the latest is worth writing). */
  private next: { value: string | null } | undefined;

  constructor(
    private readonly save: (state: string | null) => Promise<void>,
    /** Called only when something is logged (the renderer's logger is made on first use). */
    private readonly logger: () => Logger,
  ) {}

  startTurn(turnId: string): void {
    this.state = { v: 1, turnId, segment: [], tools: {} };
  }

  segment(messageIds: readonly string[]): void {
    if (this.state === undefined) return;
    this.state.segment = [...messageIds];
    this.write();
  }

  /**
   * A segment's final edit landed. `answer`: it was the turn's committed answer, the turn's last segment; nothing is
   * written for it (one statement less per turn). The turn's *ended* write follows, after which a restart ignores
   * what the route records; a kill before it makes the restart edit the committed text into the recorded messages
   * again, which shows nothing new (docs/design/durability.md).
   */
  segmentEnded(answer = false): void {
    if (this.state === undefined || this.state.segment.length === 0) return;
    this.state.segment = [];
    if (!answer) this.write();
  }

  toolPosted(callId: string, card: LiveToolCard): void {
    if (this.state === undefined) return;
    this.state.tools[callId] = card;
    this.write();
  }

  toolDone(callId: string): void {
    if (this.state?.tools[callId] === undefined) return;
    delete this.state.tools[callId];
    this.write();
  }

  /**
   * The turn ended in this process. Nothing is written: what was recorded last holds no message left to finish (its
   * segments ended, its cards were marked done), and a restart ignores such a value (one statement less per turn).
   */
  endTurn(): void {
    this.state = undefined;
    this.written = false;
  }

  /** Resolves when every write handed in so far has settled. */
  idle(): Promise<void> {
    return this.chain;
  }

  private write(): void {
    this.written = true;
    this.enqueue(JSON.stringify(this.state));
  }

  /**
   * One save at a time, in order. Values handed in while a save runs are merged into the next one: the row holds one
   * value, so writing the intermediate ones would cost a statement each and show nothing a restart could use.
   */
  private enqueue(value: string | null): void {
    const queued = this.next !== undefined;
    this.next = { value };
    if (queued) return;
    this.chain = this.chain
      .then(() => {
        const latest = this.next?.value ?? null;
        this.next = undefined;
        return this.save(latest);
      })
      .catch((error: unknown) =>
        this.logger().warn({ error: describeError(error) }, 'recording the live message failed'),
      );
  }
}
