/**
 * Saves a downloaded attachment into `<workstream folder>/attachments/` under a cleaned-up name, never overwriting a
 * file and never following a link a tool may have planted there (O_EXCL | O_NOFOLLOW, and the folder must be a real one).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import path from 'node:path';

export const ATTACHMENTS_FOLDER = 'attachments';
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const MAX_NAME = 100;
const MAX_TRIES = 200;

/** A file name safe on every file system: no folders, no control or shell-special characters, no leading dot. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const cleaned = base
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._ -]/gu, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[.\s_-]+/, '')
    .trim();
  if (cleaned === '') return 'file';
  if (cleaned.length <= MAX_NAME) return cleaned;
  const ext = path.extname(cleaned).slice(0, 12);
  return `${cleaned.slice(0, MAX_NAME - ext.length)}${ext}`;
}

function candidate(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const ext = path.extname(name);
  return `${name.slice(0, name.length - ext.length)}-${attempt}${ext}`;
}

/** Creates the attachments folder in the workstream folder; refuses one that is a link or not a folder. */
async function attachmentsFolder(workstreamDir: string): Promise<string> {
  await mkdir(workstreamDir, { recursive: true });
  const folder = path.join(workstreamDir, ATTACHMENTS_FOLDER);
  await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const info = await lstat(folder);
  if (!info.isDirectory() || info.isSymbolicLink())
    throw new Error(`${ATTACHMENTS_FOLDER} in the workspace is not a folder`);
  return folder;
}

/** Writes `bytes` as a new file named after `name`; resolves with its path relative to the workstream folder. */
export async function saveAttachment(workstreamDir: string, name: string, bytes: Buffer): Promise<string> {
  const folder = await attachmentsFolder(workstreamDir);
  const wanted = safeFileName(name);
  for (let attempt = 0; attempt < MAX_TRIES; attempt++) {
    const fileName = candidate(wanted, attempt);
    let handle;
    try {
      handle = await open(path.join(folder, fileName), CREATE_FLAGS, 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' || (error as NodeJS.ErrnoException).code === 'ELOOP')
        continue;
      throw error;
    }
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    return `${ATTACHMENTS_FOLDER}/${fileName}`;
  }
  throw new Error('too many attachments with the same name');
}
