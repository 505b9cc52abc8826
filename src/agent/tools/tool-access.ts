/** Where the file tools may reach: the workstream folder (read-write), `tools.read_roots` (read-only), never the gateway's own files. */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../sandbox/bwrap-argv.js';
import { canonicalPath, resolveToolPath } from './resolve-tool-path.js';

/** The containment facts every file tool checks a path against (canonical, absolute paths). */
export interface ToolAccess {
  /** `tools.read_roots`: extra read-only roots. */
  readRoots: readonly string[];
  /** Never readable or writable, whatever the roots say: the config file, the database file and its journals. */
  protectedFiles: readonly string[];
  /** Never reachable except the part that is the calling workstream's own folder: data_dir, workspace_dir. */
  protectedTrees: readonly string[];
}

export const NO_EXTRA_ACCESS: ToolAccess = { readRoots: [], protectedFiles: [], protectedTrees: [] };

export type AccessMode = 'read' | 'write';

export type PathCheck = { ok: true; absolute: string; canonical: string } | { ok: false; error: string };

/** Canonical form of a configured path (the real path of its nearest existing ancestor joined with the rest). */
export function canonicalSync(entry: string): string {
  const pending: string[] = [];
  let current = path.resolve(entry);
  for (;;) {
    try {
      return path.join(realpathSync(current), ...pending.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(entry);
      pending.push(path.basename(current));
      current = parent;
    }
  }
}

/** Builds the access facts from configured paths (canonicalised once). The database's journal files are included. */
export function createToolAccess(options: {
  readRoots?: readonly string[];
  configFile?: string;
  databaseFile?: string;
  trees?: readonly string[];
}): ToolAccess {
  const files: string[] = [];
  if (options.configFile !== undefined) files.push(options.configFile);
  if (options.databaseFile !== undefined)
    files.push(...['', '-wal', '-shm', '-journal'].map((suffix) => `${options.databaseFile ?? ''}${suffix}`));
  return {
    readRoots: (options.readRoots ?? []).map(canonicalSync),
    protectedFiles: files.map(canonicalSync),
    protectedTrees: (options.trees ?? []).map(canonicalSync),
  };
}

/** Why `canonical` is out of reach for `mode`, or undefined when it may be used. */
export function accessProblem(
  canonical: string,
  workspace: string,
  access: ToolAccess,
  mode: AccessMode,
): 'protected' | 'outside' | 'read-only' | undefined {
  if (access.protectedFiles.some((file) => isWithin(canonical, file))) return 'protected';
  const inWorkspace = isWithin(canonical, workspace);
  // The workstream's own folder usually lives inside data_dir/workspaces: only that part of a protected tree opens.
  const ownFolderOfTree = (tree: string): boolean => inWorkspace && isWithin(workspace, tree) && workspace !== tree;
  if (access.protectedTrees.some((tree) => isWithin(canonical, tree) && !ownFolderOfTree(tree))) return 'protected';
  if (inWorkspace) return undefined;
  if (access.readRoots.some((root) => isWithin(canonical, root))) return mode === 'read' ? undefined : 'read-only';
  return 'outside';
}

/** The text the model reads when a path is refused. */
export function describeAccessProblem(
  input: string,
  problem: 'protected' | 'outside' | 'read-only',
  workspace: string,
): string {
  if (problem === 'protected')
    return `Error: ${input} is a protected gateway path (configuration, database or data directory); no tool may read or write it`;
  if (problem === 'read-only')
    return `Error: ${input} is in a read-only root (tools.read_roots); only files inside the workspace ${workspace} can be written`;
  return `Error: ${input} is outside the workspace ${workspace}; file tools only reach files inside it (and tools.read_roots, read-only)`;
}

/** Resolves a tool's path argument (relative to the workspace, symlinks followed) and checks it for `mode`. */
export async function checkToolPath(
  input: string,
  cwd: string,
  access: ToolAccess,
  mode: AccessMode,
): Promise<PathCheck> {
  if (input.includes('\0')) return { ok: false, error: 'Error: the path contains a NUL character' };
  const workspace = await canonicalPath(path.resolve(cwd));
  const absolute = resolveToolPath(input, cwd);
  const canonical = await canonicalPath(absolute);
  const problem = accessProblem(canonical, workspace, access, mode);
  if (problem !== undefined) return { ok: false, error: describeAccessProblem(input, problem, workspace) };
  return { ok: true, absolute, canonical };
}
