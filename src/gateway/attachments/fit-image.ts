/**
 * Validates an image and shrinks it to what every vision provider accepts (ADR 0017): the long edge at most 1568 px
 * (Anthropic's recommended size; OpenAI scales to 2048) and at most 3.75 MB (Anthropic's 5 MB limit after base64).
 * sharp is imported on first use only, so start-up and text-only deployments never load libvips.
 */
import type SharpDefault from 'sharp';
import { err, ok, type Result } from '../../shared/result.js';

export const IMAGE_MAX_EDGE = 1568;
export const IMAGE_MAX_BYTES = 3_750_000;

export interface FittedImage {
  bytes: Buffer;
  mediaType: string;
  width: number;
  height: number;
  /** The original's size when it had to be shrunk or re-encoded. */
  original?: { width: number; height: number };
}

type Sharp = typeof SharpDefault;
let loaded: Promise<Sharp> | undefined;

function sharpModule(): Promise<Sharp> {
  loaded ??= import('sharp').then((module) => {
    // Each image is processed once: libvips' operation cache would only hold memory.
    module.default.cache(false);
    return module.default;
  });
  loaded.catch(() => {
    loaded = undefined;
  });
  return loaded;
}

const FORMATS: Readonly<Record<string, string>> = { png: 'image/png', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

async function shrink(sharp: Sharp, bytes: Buffer, format: string, quality: number): Promise<{ data: Buffer; width: number; height: number; mediaType: string }> {
  const pipeline = sharp(bytes, { failOn: 'error' }).rotate().resize(IMAGE_MAX_EDGE, IMAGE_MAX_EDGE, { fit: 'inside', withoutEnlargement: true });
  const encoded =
    (format === 'png' || format === 'gif') && quality >= 85
      ? pipeline.png({ compressionLevel: 9 })
      : format === 'webp'
        ? pipeline.webp({ quality })
        : pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, mediaType: FORMATS[info.format] ?? 'image/jpeg' };
}

async function loadSharp(): Promise<Sharp | undefined> {
  try {
    return await sharpModule();
  } catch {
    return undefined;
  }
}

/** Format and size read from the bytes (never trusted from the name or the announced type); undefined when unreadable. */
async function probe(sharp: Sharp, bytes: Buffer): Promise<{ format: string; mediaType: string; width: number; height: number; animated: boolean } | undefined> {
  try {
    const meta = await sharp(bytes, { failOn: 'error' }).metadata();
    const mediaType = FORMATS[meta.format];
    if (mediaType === undefined || !meta.width || !meta.height) return undefined;
    return { format: meta.format, mediaType, width: meta.width, height: meta.height, animated: (meta.pages ?? 1) > 1 };
  } catch {
    return undefined;
  }
}

/** The image as it may be sent to a model, or why it cannot be (not a PNG/JPEG/GIF/WebP image, undecodable). */
export async function fitImage(bytes: Buffer): Promise<Result<FittedImage, string>> {
  const sharp = await loadSharp();
  if (!sharp) return err('images cannot be processed on this server (the sharp module did not load)');
  const meta = await probe(sharp, bytes);
  if (!meta) return err('it is not a readable PNG, JPEG, GIF or WebP image');
  const { width, height } = meta;
  // OpenAI takes only still GIFs: an animation is sent as its first frame.
  const fits = width <= IMAGE_MAX_EDGE && height <= IMAGE_MAX_EDGE && bytes.length <= IMAGE_MAX_BYTES && !meta.animated;
  if (fits) return ok({ bytes, mediaType: meta.mediaType, width, height });
  try {
    for (const quality of [85, 70, 50]) {
      const out = await shrink(sharp, bytes, meta.format, quality);
      if (out.data.length <= IMAGE_MAX_BYTES) return ok({ bytes: out.data, mediaType: out.mediaType, width: out.width, height: out.height, original: { width, height } });
    }
  } catch {
    return err('it is not a readable image');
  }
  return err('it could not be made small enough for the model');
}
