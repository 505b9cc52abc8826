/**
 * The image work of `fitImage`, run in a worker thread: header checks (format, pixel limits) before any decode, then
 * the shrink. Plain JavaScript evaluated by the worker, so the same code runs from the sources (tsx) and from dist/
 * without a loader in the worker; sharp is imported from the URL the gateway resolved.
 */

/** What the worker is given. */
export interface FitImageJob {
  sharpUrl: string;
  bytes: Uint8Array;
  maxEdge: number;
  maxBytes: number;
  /** Images libvips can stream (baseline JPEG, non-interlaced PNG). */
  maxPixels: number;
  /** Images decoded whole into memory (interlaced PNG, progressive JPEG, GIF, WebP). */
  maxFullDecodePixels: number;
}

/** What the worker answers: the fitted image, or the reason it was refused. */
export type FitImageAnswer =
  | {
      ok: true;
      bytes?: Uint8Array;
      mediaType: string;
      width: number;
      height: number;
      original?: { width: number; height: number };
    }
  | { ok: false; error: string };

export const FIT_IMAGE_WORKER_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const FORMATS = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };
const STREAMED = (meta) => (meta.format === 'jpeg' || meta.format === 'png') && meta.isProgressive !== true;

async function shrink(sharp, bytes, format, quality, job) {
  const pipeline = sharp(bytes, { failOn: 'error', limitInputPixels: job.maxPixels, sequentialRead: true })
    .rotate().resize(job.maxEdge, job.maxEdge, { fit: 'inside', withoutEnlargement: true });
  const encoded = (format === 'png' || format === 'gif') && quality >= 85
    ? pipeline.png({ compressionLevel: 9 })
    : format === 'webp' ? pipeline.webp({ quality }) : pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, mediaType: FORMATS[info.format] || 'image/jpeg' };
}

function refusal(meta, job) {
  const pixels = meta.width * meta.height;
  const limit = STREAMED(meta) ? job.maxPixels : job.maxFullDecodePixels;
  if (pixels <= limit) return undefined;
  const kind = STREAMED(meta) ? '' : (meta.format === 'png' ? 'interlaced ' : meta.format === 'jpeg' ? 'progressive ' : '');
  return 'it is too large to process: ' + meta.width + '×' + meta.height + ' pixels, over the limit of ' + Math.round(limit / 1e6) + ' megapixels for ' + kind + meta.format.toUpperCase() + ' images';
}

async function fit(job) {
  const sharp = (await import(job.sharpUrl)).default;
  sharp.cache(false);
  sharp.concurrency(1);
  const bytes = Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength);
  let meta;
  try {
    meta = await sharp(bytes, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, error: 'it is not a readable PNG, JPEG, GIF or WebP image' };
  }
  const mediaType = FORMATS[meta.format];
  if (mediaType === undefined || !meta.width || !meta.height) return { ok: false, error: 'it is not a readable PNG, JPEG, GIF or WebP image' };
  const refused = refusal(meta, job);
  if (refused !== undefined) return { ok: false, error: refused };
  const { width, height } = meta;
  const animated = (meta.pages || 1) > 1;
  if (width <= job.maxEdge && height <= job.maxEdge && bytes.length <= job.maxBytes && !animated) return { ok: true, mediaType, width, height };
  try {
    for (const quality of [85, 70, 50]) {
      const out = await shrink(sharp, bytes, meta.format, quality, job);
      if (out.data.length <= job.maxBytes) return { ok: true, bytes: out.data, mediaType: out.mediaType, width: out.width, height: out.height, original: { width, height } };
    }
  } catch {
    return { ok: false, error: 'it is not a readable image' };
  }
  return { ok: false, error: 'it could not be made small enough for the model' };
}

fit(workerData).then(
  (answer) => parentPort.postMessage(answer),
  (error) => parentPort.postMessage({ ok: false, error: 'images cannot be processed on this server (' + String(error && error.message || error).slice(0, 200) + ')' }),
);
`;
