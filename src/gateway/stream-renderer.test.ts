/** Tests for StreamRenderer: cadence, rate-limit slow-down, splitting, final edit, tool cards, errors, empty answers, graceful stop. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentEvent } from '../agent/events.js';
import type { OutboundMessage } from '../channels/channel-adapter.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { waitFor } from '../../test/helpers/wait-for.js';
import { createSilentLogger } from '../shared/logger.js';
import { EMPTY_ANSWER_NOTE, StreamRenderer, type RendererHooks } from './stream-renderer.js';

interface Cancelled {
  approvalIds: readonly string[];
  ranCallIds: ReadonlySet<string>;
}

function setup(editIntervalMs = 1_000_000): {
  adapter: RecordingAdapter;
  renderer: StreamRenderer;
  cancelled: Cancelled[];
} {
  const adapter = new RecordingAdapter({ capabilities: { maxMessageLength: 100 } });
  const cancelled: Cancelled[] = [];
  const hooks: RendererHooks = {
    onApprovalCard: async () => undefined,
    onApprovalResolved: async () => undefined,
    onTurnCancelled: async (approved) => {
      cancelled.push(approved);
    },
    onClosed: () => undefined,
  };
  const renderer = new StreamRenderer({
    adapter,
    channelId: 'c',
    logger: createSilentLogger(),
    hooks,
    editIntervalMs,
    typingIntervalMs: 1_000_000,
  });
  return { adapter, renderer, cancelled };
}

/** A turn whose first words ('partial') are shown in the live message, at a 5 ms cadence. */
async function showingPartial(): Promise<{ adapter: RecordingAdapter; renderer: StreamRenderer }> {
  const { adapter, renderer } = setup(5);
  void renderer.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
  void renderer.handle({ type: 'text-delta', text: 'partial' });
  const deadline = Date.now() + 10_000;
  while (adapter.shown.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  return { adapter, renderer };
}

function feed(renderer: StreamRenderer, events: AgentEvent[]): Promise<void> {
  for (const event of events) void renderer.handle(event);
  return renderer.idle();
}

describe('StreamRenderer', () => {
  it('shows the complete answer after the turn ends even when the cadence never fired', async () => {
    const { adapter, renderer } = setup();
    void renderer.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
    // The model works until the indicator went out (it goes out once the work already under way has run). A fixed
    // sleep here raced the indicator's immediate on a loaded machine: the timer's phase comes first in a late loop.
    await waitFor(() => adapter.typing >= 1, 'the typing indicator');
    await feed(renderer, [
      { type: 'text-delta', text: 'Hello ' },
      { type: 'text-delta', text: 'world' },
      { type: 'turn-end', turnId: 't1', text: 'Hello world', reason: 'done' },
    ]);
    await renderer.idle();
    assert.deepEqual(adapter.texts(), ['Hello world']);
    renderer.dispose();
  });

  it('sends no typing indicator after an answer that ended before the indicator went out', async () => {
    const { adapter, renderer } = setup();
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      { type: 'text-delta', text: 'At once' },
      { type: 'turn-end', turnId: 't1', text: 'At once', reason: 'done' },
    ]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(adapter.texts(), ['At once']);
    assert.equal(adapter.typing, 0, 'an indicator now would show "typing…" under a finished answer for seconds');
    renderer.dispose();
  });

  it('splits an answer over the platform limit into several messages', async () => {
    const { adapter, renderer } = setup();
    const answer = Array.from({ length: 30 }, (_, i) => `line ${i} of the answer`).join('\n');
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      { type: 'text-delta', text: answer },
      { type: 'turn-end', turnId: 't1', text: answer, reason: 'done' },
    ]);
    const texts = adapter.texts();
    assert.ok(texts.length > 1);
    assert.ok(texts.every((text) => text.length <= 100));
    assert.equal(texts.join('\n'), answer);
    renderer.dispose();
  });

  it('retries the final edit until it succeeds', async () => {
    const { adapter, renderer } = await showingPartial();
    adapter.failEdits = 2;
    await feed(renderer, [
      { type: 'text-delta', text: ' and the rest' },
      { type: 'turn-end', turnId: 't1', text: 'partial and the rest', reason: 'done' },
    ]);
    assert.deepEqual(adapter.texts(), ['partial and the rest']);
    renderer.dispose();
  });

  it('shows the complete answer without the Stop control as soon as the model call ends, before the turn has ended', async () => {
    const { adapter, renderer } = await showingPartial();
    const live = adapter.shown[0]?.message;
    assert.equal(
      live?.kind === 'text' && live.stoppable,
      true,
      'the live message carries Stop while the model streams',
    );
    await feed(renderer, [
      { type: 'text-delta', text: ' and the rest' },
      { type: 'model-call-end', finishReason: 'stop' },
    ]);
    assert.deepEqual(adapter.texts(), ['partial and the rest']);
    const final = adapter.shown[0]?.message;
    assert.equal(final?.kind === 'text' && final.stoppable === true, false, 'the final text no longer offers Stop');
    // The turn's end adds nothing: the answer is already shown in full.
    const edits = adapter.shown[0]?.edits;
    await feed(renderer, [{ type: 'turn-end', turnId: 't1', text: 'partial and the rest', reason: 'done' }]);
    assert.deepEqual(adapter.texts(), ['partial and the rest']);
    assert.equal(adapter.shown[0]?.edits, edits);
    renderer.dispose();
  });

  it("gives a segment's posts and edits one signal, which a stop aborts and which is let go when the segment ends", async () => {
    const signals: AbortSignal[] = [];
    class SignalAdapter extends RecordingAdapter {
      override post(channelId: string, message: OutboundMessage, signal?: AbortSignal): Promise<string> {
        if (message.kind === 'text' && signal) signals.push(signal);
        return super.post(channelId, message);
      }
      override edit(
        channelId: string,
        messageId: string,
        message: OutboundMessage,
        signal?: AbortSignal,
      ): Promise<void> {
        if (signal) signals.push(signal);
        return super.edit(channelId, messageId, message);
      }
    }
    const adapter = new SignalAdapter();
    const hooks: RendererHooks = {
      onApprovalCard: async () => undefined,
      onApprovalResolved: async () => undefined,
      onTurnCancelled: async () => undefined,
      onClosed: () => undefined,
    };
    const renderer = new StreamRenderer({
      adapter,
      channelId: 'c',
      logger: createSilentLogger(),
      hooks,
      editIntervalMs: 5,
      typingIntervalMs: 1_000_000,
    });
    void renderer.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
    void renderer.handle({ type: 'text-delta', text: 'first' });
    for (let waited = 0; adapter.shown.length === 0 && waited < 10_000; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    await feed(renderer, [
      { type: 'text-delta', text: ' answer' },
      { type: 'model-call-end', finishReason: 'tool-calls' },
    ]);
    const first = signals.length;
    assert.ok(first >= 2, 'the post and the final edit');
    assert.ok(
      signals.every((signal) => signal === signals[0]),
      'one signal for the whole segment, none linked per call',
    );
    await feed(renderer, [{ type: 'text-delta', text: 'second' }]);
    for (let waited = 0; signals.length === first && waited < 10_000; waited += 5)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const second = signals.at(-1);
    assert.notEqual(second, signals[0], 'the next segment has a signal of its own');
    renderer.dispose();
    assert.equal(second?.aborted, true, 'a stop aborts the calls of the segment being shown');
    assert.equal(signals[0]?.aborted, false, "the finished segment's signal was unlinked from the renderer");
  });

  it('stretches the cadence on rate limits and never shortens it', () => {
    const { renderer } = setup(1500);
    renderer.slowDown(200);
    assert.equal(renderer.currentIntervalMs, 3000);
    renderer.slowDown(10);
    assert.equal(renderer.currentIntervalMs, 6000);
    renderer.slowDown(60_000);
    assert.equal(renderer.currentIntervalMs, 15_000);
    renderer.dispose();
  });

  it('turns a tool call card into its result and shows errors and cancellation', async () => {
    const { adapter, renderer } = setup();
    const item = {
      callId: 'c1',
      name: 'read_file',
      approvalLabel: 'read_file',
      header: 'Read a.txt',
      preview: 'a.txt',
      needsApproval: false,
    };
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      { type: 'text-delta', text: 'Let me look.' },
      { type: 'tool-calls', items: [item] },
      { type: 'tool-result', callId: 'c1', name: 'read_file', output: 'contents', isError: false },
      { type: 'error', message: 'model unavailable' },
      { type: 'turn-end', turnId: 't1', text: '', reason: 'cancelled' },
    ]);
    const kinds = adapter.shown.map((s) => s.message.kind);
    assert.deepEqual(kinds, ['text', 'tool-call', 'error', 'notice']);
    const card = adapter.shown[1]?.message;
    assert.equal(card?.kind === 'tool-call' ? card.status : undefined, 'done');
    assert.equal(card?.kind === 'tool-call' ? card.output : undefined, 'contents');
    renderer.dispose();
  });

  it('shows a short note, never an empty message, when the model answers nothing', async () => {
    const { adapter, renderer } = setup(0);
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      { type: 'turn-end', turnId: 't1', text: '', reason: 'done' },
      { type: 'turn-start', turnId: 't2', userMessage: 'again' },
      { type: 'text-delta', text: '\n\n  ' },
      { type: 'turn-end', turnId: 't2', text: '', reason: 'done' },
    ]);
    assert.deepEqual(adapter.texts(), [EMPTY_ANSWER_NOTE, EMPTY_ANSWER_NOTE]);
    assert.ok(adapter.shown.every((s) => s.message.kind !== 'text' || s.message.text.trim() !== ''));
    renderer.dispose();
  });

  it('adds nothing after an empty final answer when the turn already showed tool activity', async () => {
    const { adapter, renderer } = setup();
    const item = {
      callId: 'c1',
      name: 'bash',
      approvalLabel: 'bash',
      header: 'ls',
      preview: 'ls',
      needsApproval: false,
    };
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      { type: 'tool-calls', items: [item] },
      { type: 'tool-result', callId: 'c1', name: 'bash', output: 'a.txt', isError: false },
      { type: 'turn-end', turnId: 't1', text: '', reason: 'done' },
    ]);
    assert.deepEqual(adapter.texts(), []);
    assert.deepEqual(
      adapter.shown.map((s) => s.message.kind),
      ['tool-call'],
    );
    renderer.dispose();
  });

  it('posts the text again when a moderator deleted the live message', async () => {
    const { adapter, renderer } = setup(5);
    void renderer.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
    void renderer.handle({ type: 'text-delta', text: 'first part' });
    const deadline = Date.now() + 10_000;
    while (adapter.shown.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    adapter.deleted.add(adapter.shown[0]?.id ?? '');
    await feed(renderer, [
      { type: 'text-delta', text: ' and the rest' },
      { type: 'turn-end', turnId: 't1', text: 'first part and the rest', reason: 'done' },
    ]);
    assert.deepEqual(adapter.texts(), ['first part and the rest']);
    renderer.dispose();
  });

  it('reports approvals granted in a cancelled turn with the calls that did run', async () => {
    const { renderer, cancelled } = setup();
    await feed(renderer, [
      { type: 'turn-start', turnId: 't1', userMessage: 'hi' },
      {
        type: 'approval-resolved',
        approvalId: 'a1',
        outcome: 'decided',
        approved: true,
        always: false,
        feedback: null,
        decidedBy: 'u1',
      },
      {
        type: 'approval-resolved',
        approvalId: 'a2',
        outcome: 'decided',
        approved: false,
        always: false,
        feedback: null,
        decidedBy: 'u1',
      },
      { type: 'tool-result', callId: 'c9', name: 'bash', output: 'x', isError: false },
      { type: 'turn-end', turnId: 't1', text: '', reason: 'cancelled' },
    ]);
    assert.deepEqual(
      cancelled.map((entry) => [entry.approvalIds, [...entry.ranCallIds]]),
      [[['a1'], ['c9']]],
    );
    renderer.dispose();
  });

  it('posts once, complete, on platforms that cannot edit', async () => {
    const { adapter, renderer } = setup(0);
    adapter.capabilities = { ...adapter.capabilities, canEdit: false };
    // A renderer for a platform that can edit, fed right after with the same cadence, shows the partial text at its
    // first tick; once it has, the first renderer's cadence would have fired too.
    const editing = setup(0);
    for (const subject of [renderer, editing.renderer]) {
      void subject.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
      for (const word of ['one ', 'two ']) void subject.handle({ type: 'text-delta', text: word });
    }
    const deadline = Date.now() + 10_000;
    while (editing.adapter.shown.length === 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(editing.adapter.texts(), ['one two '], 'the editing platform already shows the partial text');
    assert.deepEqual(adapter.texts(), []);
    await feed(renderer, [
      { type: 'text-delta', text: 'three' },
      { type: 'turn-end', turnId: 't1', text: 'one two three', reason: 'done' },
    ]);
    assert.deepEqual(adapter.texts(), ['one two three']);
    assert.equal(adapter.shown[0]?.edits, 0);
    renderer.dispose();
    editing.renderer.dispose();
  });

  it("a graceful stop lets the live message's post in flight finish and records it; a post that never answers is aborted", async () => {
    for (const answers of [true, false]) {
      const adapter = new HeldPostAdapter();
      const states: Array<string | null> = [];
      const hooks: RendererHooks = {
        onApprovalCard: async () => undefined,
        onApprovalResolved: async () => undefined,
        onTurnCancelled: async () => undefined,
        onClosed: () => undefined,
        onLiveState: async (state) => void states.push(state),
      };
      const renderer = new StreamRenderer({
        adapter,
        channelId: 'c',
        logger: createSilentLogger(),
        hooks,
        editIntervalMs: 0,
        typingIntervalMs: 1_000_000,
      });
      void renderer.handle({ type: 'turn-start', turnId: 't1', userMessage: 'hi' });
      void renderer.handle({ type: 'text-delta', text: 'Thinking hard' });
      await adapter.posting;
      const drained = renderer.drain(answers ? 60_000 : 20);
      if (answers) adapter.answer();
      await drained;
      if (answers) {
        assert.deepEqual(
          states.map((state) => JSON.parse(state ?? 'null') as unknown),
          [{ v: 1, turnId: 't1', segment: ['m1'], tools: {} }],
        );
      } else {
        assert.deepEqual(states, [], 'nothing is recorded for a post that never answered');
        assert.equal(adapter.aborted, true, 'the post is aborted once the grace is over');
      }
    }
  });
});

/** Shows the first post at once but answers it only on `answer()` (or rejects when its signal aborts). */
class HeldPostAdapter extends RecordingAdapter {
  aborted = false;
  private started: () => void = () => undefined;
  readonly posting = new Promise<void>((resolve) => (this.started = resolve));
  private release: () => void = () => undefined;

  answer(): void {
    this.release();
  }

  override post(channelId: string, message: OutboundMessage, signal?: AbortSignal): Promise<string> {
    const shown = super.post(channelId, message);
    this.started();
    return new Promise((resolve, reject) => {
      this.release = () => void shown.then(resolve, reject);
      signal?.addEventListener(
        'abort',
        () => {
          this.aborted = true;
          reject(new Error('aborted'));
        },
        { once: true },
      );
    });
  }
}
