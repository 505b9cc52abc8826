import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { fitImage, IMAGE_MAX_BYTES } from './fit-image.js';

const solid = (width: number, height: number, alpha = false) =>
  sharp({
    create: {
      width,
      height,
      channels: alpha ? 4 : 3,
      background: alpha ? { r: 10, g: 20, b: 30, alpha: 0.5 } : '#336699',
    },
  });

describe('fitImage', () => {
  it('passes an image within the limits through untouched', async () => {
    const png = await solid(800, 600).png().toBuffer();
    const fitted = await fitImage(png);
    assert.ok(fitted.ok);
    assert.equal(fitted.value.bytes, png);
    assert.equal(fitted.value.original, undefined);
    assert.deepEqual([fitted.value.width, fitted.value.height, fitted.value.mediaType], [800, 600, 'image/png']);
  });

  it('shrinks a large image to the 1568 px long edge, keeping its format and aspect', async () => {
    const jpeg = await solid(4000, 3000).jpeg().toBuffer();
    const fitted = await fitImage(jpeg);
    assert.ok(fitted.ok);
    assert.deepEqual([fitted.value.width, fitted.value.height, fitted.value.mediaType], [1568, 1176, 'image/jpeg']);
    assert.deepEqual(fitted.value.original, { width: 4000, height: 3000 });
    assert.ok(fitted.value.bytes.length <= IMAGE_MAX_BYTES);
  });

  it('re-encodes a PNG that is too heavy even at a small size', async () => {
    const noisy = Buffer.alloc(1500 * 1500 * 3);
    for (let i = 0; i < noisy.length; i++) noisy[i] = (i * 2654435761) >>> 24;
    const png = await sharp(noisy, { raw: { width: 1500, height: 1500, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    assert.ok(png.length > IMAGE_MAX_BYTES, 'the fixture is over the byte limit');
    const fitted = await fitImage(png);
    assert.ok(fitted.ok);
    assert.ok(fitted.value.bytes.length <= IMAGE_MAX_BYTES);
    assert.ok(fitted.value.original);
  });

  it('sends an animated GIF as a still PNG of its first frame', async () => {
    // Two 1×1 frames with a NETSCAPE loop: the smallest animated GIF.
    const animated = Buffer.from(
      'R0lGODlhAQABAIAAAAAAAP///yH/C05FVFNDQVBFMi4wAwEAAAAh+QQACgAAACwAAAAAAQABAAACAkQBACH5BAAKAAAALAAAAAABAAEAAAICRAEAOw==',
      'base64',
    );
    assert.equal((await sharp(animated).metadata()).pages, 2, 'the fixture is animated');
    const fitted = await fitImage(animated);
    assert.ok(fitted.ok);
    assert.equal(fitted.value.mediaType, 'image/png');
    assert.equal((await sharp(fitted.value.bytes).metadata()).pages ?? 1, 1);
  });

  it('refuses bytes that are not an image, whatever the name said', async () => {
    const fitted = await fitImage(Buffer.from('%PDF-1.4 not an image'));
    assert.deepEqual(fitted, { ok: false, error: 'it is not a readable PNG, JPEG, GIF or WebP image' });
    const svg = await fitImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'));
    assert.equal(svg.ok, false);
  });
});

describe('fitImage bounds', () => {
  it('refuses from the header an image over the pixel limits, before decoding it', async () => {
    const interlaced = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#000000' } })
      .png({ progressive: true, compressionLevel: 1 })
      .toBuffer();
    const fitted = await fitImage(interlaced);
    assert.deepEqual(fitted, {
      ok: false,
      error: 'it is too large to process: 4000×3000 pixels, over the limit of 10 megapixels for interlaced PNG images',
    });
  });

  it('stops the work after its time budget', async () => {
    const jpeg = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#336699' } })
      .jpeg()
      .toBuffer();
    const fitted = await fitImage(jpeg, { timeBudgetMs: 1 });
    assert.deepEqual(fitted, { ok: false, error: 'it took more than 1 s to process' });
  });
});
