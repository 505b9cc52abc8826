/** Finds out once per process whether bubblewrap can build a sandbox on this host (also used by `sandpiper doctor`). */
import { spawn } from 'node:child_process';
import { processEnvironment } from '../../shared/environment.js';

export type SandboxMode = 'auto' | 'bwrap' | 'off';

/**
 * What the host offers: `bwrap` when a probe sandbox ran; `unavailable` when a sandbox was wanted (`auto`, `bwrap`)
 * and bubblewrap does not work, so the process tools are refused; `off` only when `tools.sandbox = "off"` chose
 * unconfined tools. Unconfined is never a fallback.
 */
export interface SandboxStatus {
  kind: 'bwrap' | 'unavailable' | 'off';
  /** One line for logs, /health and doctor: why the sandbox is unavailable or off, or what it is. */
  reason: string;
  /** The bubblewrap executable that worked. */
  bwrapPath?: string;
  /** `prlimit` (util-linux), used to apply the resource limits; absent = limits only by the time-out. */
  prlimitPath?: string;
  /** `setpriv` (util-linux) with --pdeathsig: the outer bwrap then dies with the gateway, even on SIGKILL. */
  setprivPath?: string;
  /** The gateway runs as root: the kernel does not apply the process-count limit to uid 0. */
  runsAsRoot: boolean;
}

export interface DetectSandboxOptions {
  mode: SandboxMode;
  /** Default `bwrap` (looked up on PATH). */
  bwrapCommand?: string;
  /** Default `prlimit`. */
  prlimitCommand?: string;
  /** Default `setpriv`. */
  setprivCommand?: string;
  signal?: AbortSignal;
}

/** How to get a working sandbox, said wherever a process tool is refused for the lack of one. */
export const SANDBOX_FIX =
  'install bubblewrap (apt-get install bubblewrap); in a container, run it with rootless podman and --security-opt unmask=/proc/*, ' +
  'or with docker run --security-opt seccomp=deploy/seccomp-bubblewrap.json --security-opt apparmor=unconfined ' +
  '--security-opt systempaths=unconfined (README, "Running in a container"); ' +
  'or set tools.sandbox = "off" in config.toml to accept unconfined tools';

/** The same isolation the tools get, on `true`: proves user/pid/net namespaces, /proc and /dev mounts all work. */
const PROBE_ARGS = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--tmpfs',
  '/tmp',
  '--unshare-all',
  '--cap-drop',
  'ALL',
  '--die-with-parent',
  '--',
  'true',
];

/** What the probes found, per mode, commands and PATH: the host does not change while the process runs. */
const detected = new Map<string, Promise<SandboxStatus>>();

/**
 * Probes the host, once per process for the same mode, commands and PATH (a later call, such as a second gateway in
 * one process, gets the first answer). `off` mode never probes bubblewrap. Never throws: a missing or broken
 * bubblewrap is an `unavailable` status whose reason says why (`bwrap` mode callers refuse to start on it; `auto`
 * starts with the process tools refused). A probe cut short by `signal` is not kept.
 */
export function detectSandbox(options: DetectSandboxOptions): Promise<SandboxStatus> {
  const key = JSON.stringify([
    options.mode,
    options.bwrapCommand,
    options.prlimitCommand,
    options.setprivCommand,
    processEnvironment()['PATH'],
  ]);
  const known = detected.get(key);
  if (known !== undefined) return known;
  const probing = probeHost(options);
  detected.set(key, probing);
  // Observed on both sides, so a probe that failed against its promise is forgotten, not left as an unhandled rejection
  // (the caller gets the failure from `probing` itself).
  const forgetIfCut = (): void => {
    if (options.signal?.aborted === true) detected.delete(key);
  };
  probing.then(forgetIfCut, () => detected.delete(key));
  return probing;
}

async function probeHost(options: DetectSandboxOptions): Promise<SandboxStatus> {
  const runsAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const prlimitCommand = options.prlimitCommand ?? 'prlimit';
  const setprivCommand = options.setprivCommand ?? 'setpriv';
  const [prlimit, setpriv] = await Promise.all([
    probe(prlimitCommand, ['--version'], options.signal),
    probe(setprivCommand, ['--pdeathsig', 'KILL', '--', 'true'], options.signal),
  ]);
  const base = {
    runsAsRoot,
    ...(prlimit.ok ? { prlimitPath: prlimitCommand } : {}),
    ...(setpriv.ok ? { setprivPath: setprivCommand } : {}),
  };
  if (options.mode === 'off') return { kind: 'off', reason: 'tools.sandbox = "off"', ...base };
  if (process.platform !== 'linux')
    return { kind: 'unavailable', reason: `bubblewrap needs Linux (this host is ${process.platform})`, ...base };
  const bwrap = options.bwrapCommand ?? 'bwrap';
  const result = await probe(bwrap, PROBE_ARGS, options.signal);
  if (result.ok) return { kind: 'bwrap', reason: 'bubblewrap', bwrapPath: bwrap, ...base };
  return { kind: 'unavailable', reason: `bubblewrap unusable: ${result.problem}`, ...base };
}

/** A probe that neither exits nor fails within this long is killed and counts as unusable. */
const PROBE_TIMEOUT_MS = 10_000;

function probe(
  command: string,
  args: readonly string[],
  signal: AbortSignal | undefined,
): Promise<{ ok: true } | { ok: false; problem: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(command, [...args], { stdio: ['ignore', 'ignore', 'pipe'], ...(signal ? { signal } : {}) });
    // Our own timer, not spawn's `timeout` option: that one is cleared only on 'exit', which a command that cannot
    // start never emits, so it held the process for 10 s after a missing bwrap.
    // Purpose: timeout (a probe that hangs is killed).
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    const settle = (outcome: { ok: true } | { ok: false; problem: string }): void => {
      clearTimeout(timer);
      resolve(outcome);
    };
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < 2000) stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle({
        ok: false,
        problem:
          error.code === 'ENOENT'
            ? `${command} is not installed`
            : `${command} could not start (${error.code ?? error.message})`,
      });
    });
    child.on('close', (code, exitSignal) => {
      if (code === 0) settle({ ok: true });
      else
        settle({
          ok: false,
          problem: firstLine(stderr) || `${command} exited with ${code ?? exitSignal ?? 'unknown'}`,
        });
    });
  });
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 300);
}
