/** Path handling shared by the file tools: `~` expansion, resolution against the workstream's directory. */
import { realpath } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Expands `~` and resolves a relative path against `cwd` (the workstream's directory, never the process's). */
export function resolveToolPath(input: string, cwd: string): string {
  let expanded = input.trim();
  if (expanded === '~') expanded = os.homedir();
  else if (expanded.startsWith('~/')) expanded = path.join(os.homedir(), expanded.slice(2));
  return path.resolve(cwd, expanded);
}

/**
 * The canonical form stored in the read-before-edit set: the real path when the file exists, otherwise
 * the real path of the nearest existing ancestor joined with the rest.
 */
export async function canonicalPath(absolutePath: string): Promise<string> {
  const pending: string[] = [];
  let current = absolutePath;
  for (;;) {
    try {
      const real = await realpath(current);
      return pending.length === 0 ? real : path.join(real, ...pending.reverse());
    } catch {
      // Not there (yet): canonicalize the parent and keep the missing tail as written.
      const parent = path.dirname(current);
      if (parent === current) return absolutePath;
      pending.push(path.basename(current));
      current = parent;
    }
  }
}

/** Absolute and canonical path of a tool's path argument. */
export async function locateToolPath(input: string, cwd: string): Promise<{ absolute: string; canonical: string }> {
  const absolute = resolveToolPath(input, cwd);
  return { absolute, canonical: await canonicalPath(absolute) };
}
