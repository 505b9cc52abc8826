/** Opens files for the file tools without following a final symlink, then re-checks what was really opened. */
import { constants, type Stats } from 'node:fs';
import { open, readlink, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { canonicalPath } from './resolve-tool-path.js';
import {
  accessProblem,
  checkToolPath,
  describeAccessProblem,
  type AccessMode,
  type ToolAccess,
} from './tool-access.js';

export type Opened =
  | { ok: true; handle: FileHandle; info: Stats; canonical: string; created: boolean }
  | { ok: false; error: string; code?: string };

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const UPDATE_FLAGS = constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** `read`: read only; `create`: write, creating the file when missing; `update`: read and write an existing file. */
export type OpenMode = 'read' | 'create' | 'update';

/**
 * Resolve, check, open the canonical path with O_NOFOLLOW (a final component swapped for a link fails), then fstat
 * and re-check the path the descriptor really points at (an intermediate directory swapped for a link is caught).
 * Refused: anything but a regular file (devices, FIFOs, sockets) and files with more than one hard link, which
 * could be another name of a file outside the workspace. Nothing is read, written or truncated before the checks.
 */
export async function openConfined(
  input: string,
  cwd: string,
  access: ToolAccess,
  openMode: OpenMode,
): Promise<Opened> {
  const mode: AccessMode = openMode === 'read' ? 'read' : 'write';
  const check = await checkToolPath(input, cwd, access, mode);
  if (!check.ok) return check;
  let handle: FileHandle;
  let created = false;
  try {
    if (openMode === 'create') {
      created = !(await exists(check.canonical));
      handle = await open(check.canonical, WRITE_FLAGS, 0o644);
    } else {
      handle = await open(check.canonical, openMode === 'update' ? UPDATE_FLAGS : READ_FLAGS);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP')
      return { ok: false, error: `Error: ${input} changed into a symbolic link while it was being opened; refused` };
    return { ok: false, error: fsErrorText(input, code, mode), ...(code === undefined ? {} : { code }) };
  }
  const problem = await verifyOpened(handle, input, cwd, access, mode);
  if (problem !== undefined) {
    await handle.close();
    // Best-effort clean-up of the file this call just created; the refusal below is the result either way.
    if (created) await unlink(check.canonical).catch(() => undefined);
    return { ok: false, error: problem };
  }
  return { ok: true, handle, info: await handle.stat(), canonical: check.canonical, created };
}

async function verifyOpened(
  handle: FileHandle,
  input: string,
  cwd: string,
  access: ToolAccess,
  mode: AccessMode,
): Promise<string | undefined> {
  const info = await handle.stat();
  if (info.isDirectory())
    return `Error: ${input} is a directory, not a file. Use search, or bash with ls, to look inside it.`;
  if (!info.isFile())
    return `Error: ${input} is not a regular file (device, FIFO or socket); file tools only open regular files`;
  if (info.nlink > 1)
    return `Error: ${input} has ${info.nlink} hard links; file tools refuse hard-linked files (another name could be outside the workspace)`;
  const real = await descriptorPath(handle);
  if (real === undefined) return undefined;
  const workspace = await canonicalPath(path.resolve(cwd));
  const problem = accessProblem(real, workspace, access, mode);
  return problem === undefined
    ? undefined
    : `${describeAccessProblem(input, problem, workspace)} (it moved while being opened)`;
}

/** The path the kernel has for an open descriptor (Linux /proc); undefined where that is not available. */
async function descriptorPath(handle: FileHandle): Promise<string | undefined> {
  try {
    const target = await readlink(`/proc/self/fd/${handle.fd}`);
    return target.endsWith(' (deleted)') ? undefined : target;
  } catch {
    return undefined;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    const handle = await open(file, READ_FLAGS);
    await handle.close();
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** Tool-result text for a filesystem error code. */
export function fsErrorText(input: string, code: string | undefined, mode: AccessMode): string {
  const verb = mode === 'read' ? 'reading' : 'writing';
  if (code === 'ENOENT') return `Error: ${input} not found`;
  if (code === 'EACCES' || code === 'EPERM') return `Error ${verb} ${input}: permission denied`;
  if (code === 'EISDIR')
    return mode === 'read' ? `Error: ${input} is a directory, not a file` : `Error writing ${input}: it is a directory`;
  if (code === 'ENXIO')
    return `Error: ${input} is not a regular file (device, FIFO or socket); file tools only open regular files`;
  return `Error ${verb} ${input}: ${code ?? 'failed'}`;
}

/** Reads a whole opened file (the caller has checked its size), honouring the signal between chunks. */
export async function readOpened(handle: FileHandle, signal: AbortSignal): Promise<Buffer> {
  return handle.readFile({ signal });
}

/** Replaces an opened file's content. */
export async function replaceOpened(handle: FileHandle, content: string, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  await handle.truncate(0);
  await handle.write(content, 0, 'utf8');
}
