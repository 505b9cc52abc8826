/** The content-type check of a downloaded attachment: what the platform announced against what its file host sent. */
import { err, ok, type Result } from '../../shared/result.js';

/** Image types every vision provider accepts; other images (SVG, HEIC, TIFF…) are saved as plain files. */
export const VISION_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export type AttachmentKind = { kind: 'image'; mediaType: string } | { kind: 'file'; mediaType: string };

const WEB_PAGE = new Set(['text/html', 'application/xhtml+xml']);
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

function bare(type: string | undefined): string {
  return (type ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function isHtmlName(name: string): boolean {
  return /\.x?html?$/i.test(name);
}

/**
 * What an attachment is, or why it is refused: a web page where a file was announced (Slack answers a token without
 * `files:read` with its sign-in page), or a type different from the announced image.
 */
export function classifyAttachment(
  name: string,
  declaredType: string | undefined,
  servedType: string,
): Result<AttachmentKind, string> {
  const declared = bare(declaredType);
  const served = bare(servedType);
  if (WEB_PAGE.has(served) && !WEB_PAGE.has(declared) && !isHtmlName(name)) {
    return err('the file host sent a web page instead of the file (on Slack, the app needs the files:read scope)');
  }
  const effective = GENERIC.has(served) ? declared : served;
  if (declared.startsWith('image/') && !effective.startsWith('image/')) {
    return err(`the file host sent ${served || 'no content type'}, not the announced ${declared}`);
  }
  const mediaType = effective || declared || 'application/octet-stream';
  return ok(VISION_TYPES.has(mediaType) ? { kind: 'image', mediaType } : { kind: 'file', mediaType });
}
