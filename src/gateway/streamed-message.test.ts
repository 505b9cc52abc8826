/** A text segment over a native stream: appends only what is new, stops at the end, falls back to post/edit on the first error. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { NativeStream } from '../channels/channel-adapter.js';
import { ChannelError } from '../shared/errors.js';
import { createSilentLogger } from '../shared/logger.js';
import { RecordingAdapter } from '../../test/fakes/recording-adapter.js';
import { openSegment, StreamedMessage } from './streamed-message.js';

/** A platform stream that shows what it was given; `failAt` makes that append (1-based) fail. */
class ShownStream implements NativeStream {
  readonly appended: string[] = [];
  finished = 0;
  constructor(private readonly failAt = 0) {}
  get messageCount(): number {
    return this.appended.length > 0 ? 1 : 0;
  }
  get messageIds(): readonly string[] {
    return this.appended.length > 0 ? ['s1'] : [];
  }
  append(text: string): Promise<void> {
    if (this.appended.length + 1 === this.failAt)
      return Promise.reject(new ChannelError('slack chat.appendStream failed (internal_error)'));
    this.appended.push(text);
    return Promise.resolve();
  }
  finish(): Promise<void> {
    this.finished += 1;
    return Promise.resolve();
  }
}

const options = (adapter: RecordingAdapter) => ({
  adapter,
  channelId: 'c',
  logger: createSilentLogger(),
  signal: new AbortController().signal,
});
const shownText = (adapter: RecordingAdapter): string =>
  adapter.shown.map((s) => (s.message.kind === 'text' ? s.message.text : '')).join('');

describe('streamed message', () => {
  it('is a plain live message when the adapter offers no stream', () => {
    const adapter = new RecordingAdapter();
    assert.ok(!(openSegment(options(adapter)) instanceof StreamedMessage));
  });

  it('appends only the new text, nothing before visible text, and stops the stream once at the end', async () => {
    const stream = new ShownStream();
    const segment = new StreamedMessage(stream, options(new RecordingAdapter()));
    segment.append('  ');
    assert.equal(await segment.sync(), true);
    assert.deepEqual(stream.appended, [], 'blank text is not streamed');
    segment.append('Hello');
    await segment.sync();
    segment.append(' world.');
    assert.equal(segment.dirty, true);
    await segment.sync();
    await segment.sync();
    assert.equal(segment.dirty, false);
    await segment.close();
    assert.deepEqual(stream.appended, ['  Hello', ' world.']);
    assert.equal(stream.finished, 1);
    assert.equal(segment.messageCount, 1);
  });

  it('shows the rest by post/edit after the first failed append, in order, and stops the stream', async () => {
    const adapter = new RecordingAdapter();
    const stream = new ShownStream(2);
    const segment = new StreamedMessage(stream, options(adapter));
    segment.append('First part. ');
    await segment.sync();
    segment.append('Second part. ');
    assert.equal(await segment.sync(), true);
    segment.append('Third part.');
    await segment.sync();
    await segment.close();
    assert.equal(stream.appended.join('') + shownText(adapter), 'First part. Second part. Third part.');
    assert.equal(stream.finished, 1, 'stopped once, when it failed');
    assert.equal(segment.messageCount, 2);
    assert.equal(segment.dirty, false);
  });
});
