/** Whether attached images can be processed: sharp (prebuilt libvips) loads and decodes a PNG on this machine. */
import { fitImage } from '../gateway/attachments/fit-image.js';
import { ok, warn, type CheckResult } from './doctor-check.js';

const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export async function checkImages(): Promise<CheckResult> {
  const fitted = await fitImage(Buffer.from(ONE_PIXEL_PNG, 'base64'));
  if (fitted.ok) return ok('images', 'sharp loaded: attached images are checked and resized for vision models');
  return warn(
    'images',
    `attached images cannot be processed: ${fitted.error}`,
    'reinstall with npm ci on this platform so the prebuilt sharp binary (@img/sharp-<os>-<arch>) is installed; until then images get a notice and files still work',
  );
}
