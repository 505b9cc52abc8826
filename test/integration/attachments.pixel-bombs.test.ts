/**
 * Pixel bombs through the real gateway (discord.js ↔ fake Discord with its CDN, a vision model): a 31 KB PNG of
 * 16,000×16,000 pixels, interlaced and not, is refused from its header with a notice; an image just under the
 * limit that must be decoded whole is processed off the event loop. The gateway runs in this process, so its event
 * loop delay and memory are this process's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { CHANNEL_ID, DiscordHarness } from '../fakes/fake-discord-harness.js';
import type { FakeUser } from '../fakes/fake-discord.js';
import { imagesIn, lastUserText } from '../helpers/llm-images.js';
import { pngBomb } from '../helpers/png-bomb.js';

/**
 * The stall allowed while images are handled: `floorMs`, or twice what the control round (a harmless image through the
 * same path) stalled when the machine's load alone makes the event loop late. The floors sit well below what decoding
 * on the event loop costs (many seconds for a 256-megapixel bomb, about half a second for 9 megapixels) and well above
 * what a loaded CI machine delays this process's loop with nothing decoded on it (218 ms seen with a 100 ms floor).
 */
function stallBound(controlMaxMs: number, floorMs: number): number {
  return Math.max(floorMs, 2 * controlMaxMs);
}

/** Samples resident memory every 5 ms while `work` runs; answers its result and the growth over the start. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMb: (peak - start) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}

describe('pixel bombs sent as attachments', () => {
  let h: DiscordHarness;
  let alice: FakeUser;
  let controlStallMs = 0;
  before(async () => {
    h = await DiscordHarness.start({
      provider: 'anthropic',
      flags: { 'models.fake.model': 'claude-3-5-haiku-latest' },
    });
    alice = (await h.linkedUser('400000000000000211', 'alice')).user;
    // A warm-up image first, so the one-time cost of loading sharp is not counted as the bombs' memory or stall.
    await sendAndAwait('warm up', pngBomb(64, 64, true), 'Warm.');
    // Then a control: the same path with a harmless image, so a stall that the machine's load causes (another process
    // holding both cores) is told apart from one the bombs cause.
    const control = monitorEventLoopDelay({ resolution: 10 });
    control.enable();
    await sendAndAwait('and again', pngBomb(64, 64, false), 'Still warm.');
    control.disable();
    controlStallMs = control.max / 1e6;
  });
  after(() => h.close());

  async function sendAndAwait(text: string, bytes: Buffer, answer: string): Promise<void> {
    h.llm.enqueue({ text: answer });
    const sent = h.fake.injectWithFiles(
      CHANNEL_ID,
      alice,
      text,
      [{ name: 'small.png', contentType: 'image/png', bytes }],
      true,
    );
    await h.fake.waitFor(() => h.textMessages(sent.id).some((m) => m.content === answer), 20_000, `answer to ${text}`);
  }

  it('refuses 16,000×16,000 PNGs (interlaced and not) with a notice, no event-loop stall and bounded memory', async (t) => {
    const bombs = [pngBomb(16_000, 16_000, true), pngBomb(16_000, 16_000, false)];
    assert.ok(
      bombs.every((bomb) => bomb.length < 64 * 1024),
      `the bombs are small files: ${bombs.map((bomb) => bomb.length).join(', ')}`,
    );

    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    h.llm.enqueue({ text: 'No images for me.' });
    const { result: threadId, growthMb } = await peakGrowth(async () => {
      const files = bombs.map((bytes, index) => ({ name: `bomb-${index}.png`, contentType: 'image/png', bytes }));
      const message = h.fake.injectWithFiles(CHANNEL_ID, alice, 'look at these', files, true);
      await h.fake.waitFor(
        () => h.textMessages(message.id).some((m) => m.content === 'No images for me.'),
        30_000,
        'answer',
      );
      return message.id;
    });
    delay.disable();
    const notice = h.fake.state.messagesIn(threadId).find((m) => m.content.includes('Some attachments were not used'));
    assert.ok(notice, 'the user sees a notice');
    assert.match(
      notice.content,
      /bomb-0\.png: it is too large to process: 16000×16000 pixels, over the limit of 10 megapixels for interlaced PNG images/,
    );
    assert.match(
      notice.content,
      /bomb-1\.png: it is too large to process: 16000×16000 pixels, over the limit of 24 megapixels for PNG images/,
    );
    const body = h.llm.requests.at(-1)?.body;
    assert.deepEqual(imagesIn(body), [], 'no image reached the model');
    assert.match(lastUserText(body), /\[Attachment bomb-0\.png was not used: it is too large to process/);
    const maxStallMs = delay.max / 1e6;
    const bound = stallBound(controlStallMs, 1000);
    assert.ok(maxStallMs < bound, `event loop stalled ${maxStallMs.toFixed(1)} ms (bound ${bound.toFixed(1)} ms)`);
    assert.ok(growthMb < 48, `resident memory grew by ${growthMb.toFixed(1)} MB`);
    t.diagnostic(`pixel bombs: stall ${maxStallMs.toFixed(1)} ms, RSS +${growthMb.toFixed(1)} MB`);
  });

  it('decodes an interlaced image just under the limit off the event loop, within a few tens of MB', async (t) => {
    const large = pngBomb(3_000, 3_000, true);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    h.llm.enqueue({ text: 'A black square.' });
    const { growthMb } = await peakGrowth(async () => {
      const message = h.fake.injectWithFiles(
        CHANNEL_ID,
        alice,
        'and this one',
        [{ name: 'big.png', contentType: 'image/png', bytes: large }],
        true,
      );
      await h.fake.waitFor(
        () => h.textMessages(message.id).some((m) => m.content === 'A black square.'),
        30_000,
        'answer',
      );
    });
    delay.disable();
    const sent = imagesIn(h.llm.requests.at(-1)?.body);
    assert.equal(sent.length, 1, 'the image reached the model, resized');
    const maxStallMs = delay.max / 1e6;
    const bound = stallBound(controlStallMs, 300);
    assert.ok(maxStallMs < bound, `event loop stalled ${maxStallMs.toFixed(1)} ms (bound ${bound.toFixed(1)} ms)`);
    assert.ok(growthMb < 64, `resident memory grew by ${growthMb.toFixed(1)} MB`);
    t.diagnostic(`under-limit 3000×3000 interlaced: stall ${maxStallMs.toFixed(1)} ms, RSS +${growthMb.toFixed(1)} MB`);
  });
});
