/**
 * Turns a linked user's message with attachments into the user message a workstream gets (ADR 0017): each file is
 * downloaded (download-attachment.ts), checked (attachment-kind.ts) and saved into the workstream folder; images also
 * become image parts that reference the saved file; everything is named in the text so tools can read it. A file
 * that cannot be used is named with the reason, for the model and in one notice for the user; the text is never lost.
 */
import path from 'node:path';
import type { ContentPart, ImagePart } from '../../agent/messages.js';
import type { AttachmentAccess, ChannelAdapter, InboundAttachment } from '../../channels/channel-adapter.js';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { attachmentAccess } from '../channel-features.js';
import { classifyAttachment } from './attachment-kind.js';
import { downloadAttachment, type Downloaded } from './download-attachment.js';
import { fitImage } from './fit-image.js';
import { safeFileName, saveAttachment } from './save-attachment.js';

export interface IntakeOptions {
  /** `agent.workspace_dir`: each workstream's folder is `<workspace_dir>/<wsId>`. */
  workspaceDir: string;
  /** `gateway.max_attachment_mb` in bytes. */
  maxBytes: number;
  logger: Logger;
}

export interface ComposedMessage {
  /** What the workstream receives: the text with a line per attachment, plus image parts when there are images. */
  content: string | ContentPart[];
  /** One plain-text line per attachment that was not used (`name: reason`), for the user's notice. */
  skipped: string[];
}

type Outcome = { line: string; image?: ImagePart } | { skipped: string };

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

function stem(name: string): string {
  return name.slice(0, name.length - path.extname(name).length);
}

const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': '.png', 'image/jpeg': '.jpg', 'image/gif': '.gif', 'image/webp': '.webp' };

export class AttachmentIntake {
  constructor(private readonly options: IntakeOptions) {}

  /** The message for workstream `wsId`; resolves with `text` itself when there is nothing attached. */
  async compose(text: string, attachments: readonly InboundAttachment[], access: AttachmentAccess | undefined, wsId: string, signal: AbortSignal): Promise<ComposedMessage> {
    if (attachments.length === 0) return { content: text, skipped: [] };
    const dir = path.join(this.options.workspaceDir, wsId);
    // One at a time: at most one file (`max_attachment_mb`) is held in memory per message.
    const outcomes: Outcome[] = [];
    for (const attachment of attachments) outcomes.push(await this.take(attachment, access, dir, signal));
    const lines: string[] = [];
    const images: ImagePart[] = [];
    const skipped: string[] = [];
    for (const [index, outcome] of outcomes.entries()) {
      if ('skipped' in outcome) {
        const name = safeFileName(attachments[index]?.name ?? 'file');
        skipped.push(`${name}: ${outcome.skipped}`);
        lines.push(`[Attachment ${name} was not used: ${outcome.skipped}.]`);
        continue;
      }
      lines.push(outcome.line);
      if (outcome.image) images.push(outcome.image);
    }
    const body = [text, lines.join('\n')].filter((part) => part !== '').join('\n\n');
    return { content: images.length === 0 ? body : [{ type: 'text', text: body }, ...images], skipped };
  }

  /**
   * The message content for `text` with `attachments` of a message written in `threadId`; files that were not taken are
   * named in one notice there (a failed notice is logged, never thrown).
   */
  async contentFor(adapter: ChannelAdapter, threadId: string, wsId: string, text: string, attachments: readonly InboundAttachment[], signal: AbortSignal): Promise<string | ContentPart[]> {
    if (attachments.length === 0) return text;
    const composed = await this.compose(text, attachments, attachmentAccess(adapter), wsId, signal);
    if (composed.skipped.length > 0) {
      await adapter.post(threadId, { kind: 'notice', code: 'attachments-skipped', text: composed.skipped.join('\n') }, signal)
        .catch((error: unknown) => this.options.logger.warn({ threadId, error: describeError(error) }, 'attachment notice could not be posted'));
    }
    return composed.content;
  }

  private async take(attachment: InboundAttachment, access: AttachmentAccess | undefined, dir: string, signal: AbortSignal): Promise<Outcome> {
    if (!access) return { skipped: 'this platform does not pass attachments on' };
    const downloaded = await downloadAttachment(attachment, access, { maxBytes: this.options.maxBytes, signal });
    if (!downloaded.ok) return this.skip(attachment, downloaded.error);
    const kind = classifyAttachment(attachment.name, attachment.contentType, downloaded.value.contentType);
    if (!kind.ok) return this.skip(attachment, kind.error);
    try {
      return kind.value.kind === 'image' ? await this.takeImage(attachment, downloaded.value, dir) : await this.takeFile(attachment, downloaded.value, kind.value.mediaType, dir);
    } catch (error) {
      signal.throwIfAborted();
      this.options.logger.warn({ error: describeError(error) }, 'an attachment could not be saved');
      return { skipped: 'it could not be saved in the workspace' };
    }
  }

  private async takeFile(attachment: InboundAttachment, downloaded: Downloaded, mediaType: string, dir: string): Promise<Outcome> {
    const saved = await saveAttachment(dir, attachment.name, downloaded.bytes);
    return { line: `[Attached file saved in the workspace: ${saved} (${mediaType}, ${size(downloaded.bytes.length)})]` };
  }

  private async takeImage(attachment: InboundAttachment, downloaded: Downloaded, dir: string): Promise<Outcome> {
    const fitted = await fitImage(downloaded.bytes);
    if (!fitted.ok) return this.skip(attachment, fitted.error);
    const saved = await saveAttachment(dir, attachment.name, downloaded.bytes);
    const image = fitted.value;
    if (image.original === undefined) {
      return { line: `[Attached image saved in the workspace: ${saved} (${image.width}×${image.height}, ${size(downloaded.bytes.length)})]`, image: { type: 'image', mediaType: image.mediaType, data: '', file: saved } };
    }
    const resizedName = `${stem(path.basename(saved))}-resized${EXTENSIONS[image.mediaType] ?? '.jpg'}`;
    const resized = await saveAttachment(dir, resizedName, image.bytes);
    const { width, height } = image.original;
    return {
      line: `[Attached image saved in the workspace: ${saved} (${width}×${height}, ${size(downloaded.bytes.length)}); shown to the model as ${resized} (${image.width}×${image.height})]`,
      image: { type: 'image', mediaType: image.mediaType, data: '', file: resized },
    };
  }

  private skip(attachment: InboundAttachment, reason: string): Outcome {
    this.options.logger.info({ name: safeFileName(attachment.name), reason }, 'attachment not used');
    return { skipped: reason };
  }
}
