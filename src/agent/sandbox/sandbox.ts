/** The sandbox the process tools (bash, math, man, search, sandboxed MCP servers) run their children in. */
import os from 'node:os';
import path from 'node:path';
import { buildBwrapArgs } from './bwrap-argv.js';
import type { SandboxStatus } from './detect-sandbox.js';
import { DEFAULT_LIMITS, prlimitArgs, type ResourceLimits } from './resource-limits.js';

export interface SandboxSettings {
  /** `tools.sandbox_network`. */
  network: boolean;
  /** Gateway paths no contained process may see: config file, data_dir, database files, workspace_dir, credentials. */
  hidden: readonly string[];
  limits: ResourceLimits;
}

export interface WrapOptions {
  /** The only writable directory, and the working directory. */
  writable: string;
  /** Overrides of the default limits for this call (e.g. the CPU time from the tool's time-out). */
  limits?: Partial<ResourceLimits>;
}

/** How one command is started: the executable and its arguments, contained as far as the host allows. */
export interface WrappedCommand {
  command: string;
  args: string[];
}

export interface Sandbox {
  readonly kind: 'bwrap' | 'off';
  /** Contained processes have the host network. */
  readonly network: boolean;
  readonly status: SandboxStatus;
  wrap(command: string, args: readonly string[], options: WrapOptions): WrappedCommand;
}

class HostSandbox implements Sandbox {
  readonly kind: 'bwrap' | 'off';
  readonly network: boolean;

  constructor(
    readonly status: SandboxStatus,
    private readonly settings: SandboxSettings,
  ) {
    this.kind = status.kind;
    this.network = status.kind === 'off' ? true : settings.network;
  }

  wrap(command: string, args: readonly string[], options: WrapOptions): WrappedCommand {
    const limits = { ...this.settings.limits, ...options.limits };
    const contained = this.status.kind === 'bwrap' && this.status.bwrapPath !== undefined;
    const prlimit = this.status.prlimitPath;
    const limited = prlimit === undefined ? [command, ...args] : [prlimit, ...prlimitArgs(limits, contained), '--', command, ...args];
    const line = !contained || this.status.bwrapPath === undefined
      ? limited
      : [this.status.bwrapPath, ...buildBwrapArgs({ writable: options.writable, hidden: this.settings.hidden, network: this.settings.network }), '--', ...limited];
    // bwrap's --die-with-parent covers the sandbox's own processes; the outer bwrap needs a parent-death signal too.
    const full = this.status.setprivPath === undefined ? line : [this.status.setprivPath, '--pdeathsig', 'KILL', '--', ...line];
    return { command: full[0] as string, args: full.slice(1) };
  }
}

/** A sandbox over a detected host status. */
export function createSandbox(status: SandboxStatus, settings: Partial<SandboxSettings> = {}): Sandbox {
  return new HostSandbox(status, { network: settings.network ?? false, hidden: settings.hidden ?? [], limits: settings.limits ?? DEFAULT_LIMITS });
}

/** No containment at all (handler tests, and the default when a tool source is built without one). */
export const NO_SANDBOX: Sandbox = createSandbox({ kind: 'off', reason: 'not configured', runsAsRoot: false });

/** Credential files and folders under the home directory that a contained process must not read. */
export function homeCredentialPaths(home: string = os.homedir()): string[] {
  const names = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.config/gh', '.config/gcloud', '.local/share/keyrings'];
  return names.map((name) => path.join(home, name));
}

/** The reach of a contained process, one line for approval cards. */
export function describeProcessReach(sandbox: Sandbox): string {
  if (sandbox.kind === 'off') return 'NOT sandboxed: runs with the gateway user\'s full access (files, network, processes)';
  const network = sandbox.network ? 'network: on (host network, loopback included)' : 'network: off';
  return `sandboxed · writes: workspace only · ${network}`;
}
