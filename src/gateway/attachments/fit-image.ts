/**
 * Validates an image and shrinks it to what every vision provider accepts (ADR 0017): the long edge at most 1568 px
 * (Anthropic's recommended size; OpenAI scales to 2048) and at most 3.75 MB (Anthropic's 5 MB limit after base64).
 *
 * Bounded (issue #32): the pixel count is checked from the header before anything is decoded, far below sharp's
 * default (24 MP for images libvips streams, 10 MP for those it decodes whole: interlaced PNG, progressive JPEG, GIF,
 * WebP); the work runs in a worker thread (never on the event loop) with a small heap, one libvips thread and a time
 * budget, one image at a time. sharp is loaded by the worker only, so start-up and text-only deployments never load it.
 */
import { Worker } from 'node:worker_threads';
import { SerialLane } from '../../shared/serial-lane.js';
import { err, ok, type Result } from '../../shared/result.js';
import { FIT_IMAGE_WORKER_SOURCE, type FitImageAnswer, type FitImageJob } from './fit-image-worker.js';

export const IMAGE_MAX_EDGE = 1568;
export const IMAGE_MAX_BYTES = 3_750_000;
/** Pixels of an image libvips can stream (baseline JPEG, non-interlaced PNG). sharp's own default is 268 MP. */
export const IMAGE_MAX_PIXELS = 24_000_000;
/** Pixels of an image decoded whole into memory (interlaced PNG, progressive JPEG, GIF, WebP): about 40 MB at most. */
export const IMAGE_MAX_FULL_DECODE_PIXELS = 10_000_000;
/** Wall-clock budget of one image's work; the worker is stopped after it. */
export const IMAGE_TIME_BUDGET_MS = 15_000;

export interface FittedImage {
  bytes: Buffer;
  mediaType: string;
  width: number;
  height: number;
  /** The original's size when it had to be shrunk or re-encoded. */
  original?: { width: number; height: number };
}

/** One image at a time: the memory bound holds for the whole gateway, not per image. */
const lane = new SerialLane();

function sharpUrl(): string | undefined {
  try {
    return import.meta.resolve('sharp');
  } catch {
    return undefined;
  }
}

/** Runs the job in a fresh worker; a worker that fails, runs out of heap or over time is an error answer. */
function runWorker(job: FitImageJob, timeBudgetMs: number): Promise<FitImageAnswer> {
  return new Promise((resolve) => {
    const worker = new Worker(FIT_IMAGE_WORKER_SOURCE, {
      eval: true,
      workerData: job,
      resourceLimits: { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (answer: FitImageAnswer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      void worker.terminate();
    };
    // Purpose: timeout (an image that takes too long is refused).
    const timer = setTimeout(
      () =>
        finish({ ok: false, error: `it took more than ${Math.max(1, Math.round(timeBudgetMs / 1000))} s to process` }),
      timeBudgetMs,
    );
    worker.once('message', (answer: FitImageAnswer) => finish(answer));
    worker.once('error', (error: Error) =>
      finish({ ok: false, error: `it could not be processed (${error.message.slice(0, 120)})` }),
    );
    worker.once('exit', () => finish({ ok: false, error: 'it could not be processed (the image worker stopped)' }));
  });
}

/** The image as it may be sent to a model, or why it cannot be (not a PNG/JPEG/GIF/WebP image, undecodable, too large). */
export async function fitImage(
  bytes: Buffer,
  options: { timeBudgetMs?: number } = {},
): Promise<Result<FittedImage, string>> {
  const url = sharpUrl();
  if (url === undefined) return err('images cannot be processed on this server (the sharp module did not load)');
  const job: FitImageJob = {
    sharpUrl: url,
    bytes,
    maxEdge: IMAGE_MAX_EDGE,
    maxBytes: IMAGE_MAX_BYTES,
    maxPixels: IMAGE_MAX_PIXELS,
    maxFullDecodePixels: IMAGE_MAX_FULL_DECODE_PIXELS,
  };
  const answer = await lane.run(() => runWorker(job, options.timeBudgetMs ?? IMAGE_TIME_BUDGET_MS));
  if (!answer.ok) return err(answer.error);
  const { mediaType, width, height } = answer;
  const fitted =
    answer.bytes === undefined
      ? bytes
      : Buffer.from(answer.bytes.buffer, answer.bytes.byteOffset, answer.bytes.byteLength);
  return ok({
    bytes: fitted,
    mediaType,
    width,
    height,
    ...(answer.original === undefined ? {} : { original: answer.original }),
  });
}
