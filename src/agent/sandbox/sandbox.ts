/** The sandbox the process tools (bash, math, man, search, sandboxed MCP servers) run their children in. */
import os from 'node:os';
import path from 'node:path';
import { buildBwrapArgs } from './bwrap-argv.js';
import { SANDBOX_FIX, type SandboxStatus } from './detect-sandbox.js';
import { hostMatcher } from './egress/egress-hosts.js';
import { relayCommand } from './egress/egress-relay.js';
import { openEgressSession, type EgressSession, type NetworkPermissions } from './egress/egress-session.js';
import { DEFAULT_LIMITS, prlimitArgs, type ResourceLimits } from './resource-limits.js';
import type { Logger } from '../../shared/logger.js';

/** `tools.network`: none, or only through the gateway's egress proxy (new hosts by the owner's approval). */
export type SandboxNetwork = 'off' | 'ask';

export interface EgressSettings {
  /** `tools.network_allow`: destinations that pass without a card. */
  allow: readonly string[];
  /** `tools.network_internal`: exact `host:port` entries whose private addresses are trusted. */
  internal: readonly string[];
  /** The gateway's HTTP listen address, refused whatever the rules say. */
  gateway?: { host: string; port: number };
}

export interface SandboxSettings {
  network: SandboxNetwork;
  egress: EgressSettings;
  /** Gateway paths no contained process may see: config file, data_dir, database files, workspace_dir, credentials. */
  hidden: readonly string[];
  limits: ResourceLimits;
}

export interface WrapOptions {
  /** The only writable directory, and the working directory. */
  writable: string;
  /** Overrides of the default limits for this call (e.g. the CPU time from the tool's time-out). */
  limits?: Partial<ResourceLimits>;
  /** The call's egress session (from `openEgress`): the sandbox reaches the network only through it. */
  egress?: EgressSession;
}

/** How one command is started: the executable and its arguments, contained as far as the host allows. */
export interface WrappedCommand {
  command: string;
  args: string[];
}

export interface EgressRequest {
  tool: string;
  workstreamId: string;
  permissions?: NetworkPermissions;
  logger: Logger;
  signal: AbortSignal;
}

export interface Sandbox {
  readonly kind: SandboxStatus['kind'];
  /** `off`: no network inside; `ask`: through the egress proxy; `host`: no sandbox, the host network. */
  readonly network: SandboxNetwork | 'host';
  readonly status: SandboxStatus;
  /** Why no process may start (kind `unavailable`), with the fix, for the tool result the model and user read. */
  readonly refusal: string | undefined;
  /** The call's egress proxy when contained processes may reach the network (`ask`); undefined otherwise. */
  openEgress(request: EgressRequest): Promise<EgressSession | undefined>;
  /** Throws on an `unavailable` sandbox: check `refusal` first. */
  wrap(command: string, args: readonly string[], options: WrapOptions): WrappedCommand;
}

class HostSandbox implements Sandbox {
  readonly kind: SandboxStatus['kind'];
  readonly network: SandboxNetwork | 'host';
  readonly refusal: string | undefined;
  private readonly isAllowed: ReturnType<typeof hostMatcher>;

  constructor(
    readonly status: SandboxStatus,
    private readonly settings: SandboxSettings,
  ) {
    this.kind = status.kind;
    this.network = status.kind === 'off' ? 'host' : settings.network;
    this.isAllowed = hostMatcher(settings.egress.allow);
    this.refusal = status.kind === 'unavailable' ? refusalText(status.reason) : undefined;
  }

  async openEgress(request: EgressRequest): Promise<EgressSession | undefined> {
    if (this.network !== 'ask') return undefined;
    const { internal, gateway } = this.settings.egress;
    return openEgressSession({
      ...request,
      internal,
      ...(gateway === undefined ? {} : { gateway }),
      isAllowed: this.isAllowed,
    });
  }

  wrap(command: string, args: readonly string[], options: WrapOptions): WrappedCommand {
    if (this.refusal !== undefined) throw new Error(this.refusal);
    const limits = { ...this.settings.limits, ...options.limits };
    const contained = this.status.kind === 'bwrap' && this.status.bwrapPath !== undefined;
    const prlimit = this.status.prlimitPath;
    const limited =
      prlimit === undefined ? [command, ...args] : [prlimit, ...prlimitArgs(limits, contained), '--', command, ...args];
    const egressSocket = contained ? options.egress?.socketPath : undefined;
    // The relay (node) runs outside prlimit's address-space limit, which V8's reservations would exceed.
    const inner = egressSocket === undefined ? limited : relayCommand(process.execPath, limited);
    const line =
      !contained || this.status.bwrapPath === undefined
        ? limited
        : [
            this.status.bwrapPath,
            ...buildBwrapArgs({
              writable: options.writable,
              hidden: this.settings.hidden,
              ...(egressSocket === undefined ? {} : { egressSocket }),
            }),
            '--',
            ...inner,
          ];
    // bwrap's --die-with-parent covers the sandbox's own processes; the outer bwrap needs a parent-death signal too.
    const full =
      this.status.setprivPath === undefined ? line : [this.status.setprivPath, '--pdeathsig', 'KILL', '--', ...line];
    return { command: full[0] as string, args: full.slice(1) };
  }
}

/** The tool result of a process tool on a host without a working sandbox: what is wrong and the three ways out. */
function refusalText(reason: string): string {
  return `Refused: this tool runs a process, and processes run only inside the sandbox, which is unavailable on this host (${reason}). The gateway's operator can ${SANDBOX_FIX}.`;
}

/** A sandbox over a detected host status. */
export function createSandbox(status: SandboxStatus, settings: Partial<SandboxSettings> = {}): Sandbox {
  return new HostSandbox(status, {
    network: settings.network ?? 'off',
    egress: settings.egress ?? { allow: [], internal: [] },
    hidden: settings.hidden ?? [],
    limits: settings.limits ?? DEFAULT_LIMITS,
  });
}

/** No containment at all (handler tests, and the default when a tool source is built without one). */
export const NO_SANDBOX: Sandbox = createSandbox({ kind: 'off', reason: 'not configured', runsAsRoot: false });

/** Credential files and folders under the home directory that a contained process must not read. */
export function homeCredentialPaths(home: string = os.homedir()): string[] {
  const names = [
    '.ssh',
    '.gnupg',
    '.aws',
    '.azure',
    '.kube',
    '.docker',
    '.netrc',
    '.git-credentials',
    '.npmrc',
    '.pypirc',
    '.config/gh',
    '.config/gcloud',
    '.local/share/keyrings',
  ];
  return names.map((name) => path.join(home, name));
}

/** The reach of a contained process, one line for approval cards. */
export function describeProcessReach(sandbox: Sandbox): string {
  if (sandbox.kind === 'unavailable') return 'refused: no working sandbox on this host';
  if (sandbox.kind === 'off')
    return "NOT sandboxed: runs with the gateway user's full access (files, network, processes)";
  const network = sandbox.network === 'ask' ? 'network: by approval (new hosts ask you)' : 'network: off';
  return `sandboxed · writes: workspace only · ${network}`;
}
