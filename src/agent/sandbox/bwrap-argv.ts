/** The bubblewrap command line for one contained process: read-only system, one writable folder, hidden gateway files. */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../shared/package-root.js';
import { relayBwrapArgs } from './egress/egress-relay.js';

export interface BwrapSpec {
  /** The only writable directory (the workstream folder); the process starts there. */
  writable: string;
  /** Files and directories that must look empty (directories) or be /dev/null (files), even under `writable`. */
  hidden: readonly string[];
  /** The egress proxy's socket on the host, bound into the sandbox with the proxy variables set (`tools.network = "ask"`). */
  egressSocket?: string;
}

/** Directories whose contents are replaced by an empty tmpfs: sockets (docker, dbus) and runtime state. */
const RUNTIME_DIRECTORIES = ['/run', '/var/run'];
/** Files readable by root that no tool needs. */
const SYSTEM_SECRETS = ['/etc/shadow', '/etc/gshadow', '/etc/sudoers'];

/** `bwrap` arguments that precede `--` and the command. Paths that do not exist are skipped (bwrap would fail on them). */
export function buildBwrapArgs(spec: BwrapSpec): string[] {
  const writable = path.resolve(spec.writable);
  const hidden = [...new Set([...SYSTEM_SECRETS, ...spec.hidden].map((entry) => path.resolve(entry)))].filter((entry) =>
    existsSync(entry),
  );
  const containsWritable = (entry: string): boolean => isWithin(writable, entry);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  for (const directory of RUNTIME_DIRECTORIES) if (isRealDirectory(directory)) args.push('--tmpfs', directory);
  // Our own installation (node_modules: MCP servers from npm) and node stay readable even when they live under a
  // folder replaced above (a checkout in /tmp); hidden entries inside them are hidden again below.
  for (const entry of reexposedInstallPaths()) args.push('--ro-bind', entry, entry);
  // Hidden trees that hold the writable folder (data_dir, workspace_dir) go first; the bind then re-opens only it.
  for (const entry of hidden.filter(containsWritable)) args.push(...hide(entry));
  args.push('--bind', writable, writable);
  for (const entry of hidden.filter((item) => !containsWritable(item))) args.push(...hide(entry));
  // The sandbox never shares the host network: its only way out is the egress proxy's socket (its own /tmp holds it).
  if (spec.egressSocket !== undefined) args.push(...relayBwrapArgs(spec.egressSocket));
  args.push('--chdir', writable, '--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--hostname', 'sandbox');
  return args;
}

/** The package root and node's folder, when they sit under /tmp or a runtime directory that the sandbox empties. */
function reexposedInstallPaths(): string[] {
  const emptied = ['/tmp', ...RUNTIME_DIRECTORIES];
  const candidates = [packageRoot(import.meta.url), path.dirname(process.execPath)].map((entry) => realOrSelf(entry));
  return [...new Set(candidates)].filter((entry) =>
    emptied.some((directory) => isWithin(entry, directory) && entry !== directory),
  );
}

function realOrSelf(entry: string): string {
  try {
    return realpathSync(entry);
  } catch {
    return entry;
  }
}

function hide(entry: string): string[] {
  return statSync(entry).isDirectory() ? ['--tmpfs', entry] : ['--ro-bind', '/dev/null', entry];
}

function isRealDirectory(entry: string): boolean {
  try {
    return realpathSync(entry) === entry && statSync(entry).isDirectory();
  } catch {
    return false;
  }
}

/** Whether `child` is `parent` or inside it (both absolute, normalised). */
export function isWithin(child: string, parent: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
