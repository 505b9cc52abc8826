/** Runs a child process in its own process group, collecting output and killing the whole group on timeout or abort. */
import { scrubbedEnvironment } from '../../shared/environment.js';
import { killGroup } from '../../shared/process-group.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

export interface RunProcessOptions {
  cwd: string;
  signal: AbortSignal;
  /** Own time limit; the run also stops when `signal` aborts. */
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Written to standard input, which is then closed (otherwise standard input is empty). */
  input?: string;
  /** Receives decoded output chunks as they arrive (stdout and stderr). */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
  /** Per-stream cap on collected characters; the rest is dropped (and `outputCapped` set). */
  maxOutputChars?: number;
  /** Time between SIGTERM and SIGKILL of the group. */
  killGraceMs?: number;
}

export interface ProcessOutcome {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  /** Stopped by the time limit (own or the signal's timeout). */
  timedOut: boolean;
  /** Stopped because the signal aborted for another reason (cancellation). */
  cancelled: boolean;
  outputCapped: boolean;
  /** The program could not be started (e.g. ENOENT). */
  spawnError?: NodeJS.ErrnoException;
}

const DEFAULT_MAX_OUTPUT = 10 * 1024 * 1024;

/**
 * The lifeline (ADR 0013): a watcher in the child's process group reads fd 3, a socket whose other end only this process
 * holds. When this process dies, even by SIGKILL, the watcher reads end-of-file and kills the whole group, so no tool
 * process (or anything it started in the background) outlives the gateway. After a normal exit we write `done`
 * and the watcher leaves quietly. The shell then execs the command, which keeps its pid, stdin and output pipes.
 */
const LIFELINE =
  '(read -r line <&3; [ "$line" = done ] || kill -9 0) </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"';
const HAS_LIFELINE = process.platform !== 'win32';

function spawnWithLifeline(command: string, args: readonly string[], options: RunProcessOptions): ChildProcess {
  const stdin = options.input === undefined ? 'ignore' : 'pipe';
  const common = { cwd: options.cwd, env: options.env ?? scrubbedEnvironment(), detached: true } as const;
  if (!HAS_LIFELINE) return spawn(command, [...args], { ...common, stdio: [stdin, 'pipe', 'pipe'] });
  const child = spawn('/bin/sh', ['-c', LIFELINE, 'sh', command, ...args], {
    ...common,
    stdio: [stdin, 'pipe', 'pipe', 'pipe'],
  });
  const lifeline = child.stdio[3] as Writable | null;
  lifeline?.on('error', () => undefined);
  child.once('exit', () => lifeline?.end('done\n'));
  return child;
}

/** Spawns `command args` detached (own process group) and resolves once it has exited and its pipes closed. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions,
): Promise<ProcessOutcome> {
  return new Promise((resolve) => {
    const outcome: ProcessOutcome = {
      stdout: '',
      stderr: '',
      exitCode: null,
      exitSignal: null,
      timedOut: false,
      cancelled: false,
      outputCapped: false,
    };
    if (options.signal.aborted) {
      markStop(outcome, options.signal);
      resolve(outcome);
      return;
    }
    const child = spawnWithLifeline(command, args, options);
    const timers: NodeJS.Timeout[] = [];
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const stop = (reason: 'timeout' | 'signal'): void => {
      if (settled || outcome.timedOut || outcome.cancelled) return;
      if (reason === 'timeout') outcome.timedOut = true;
      else markStop(outcome, options.signal);
      killGroup(child.pid, 'SIGTERM');
      // Purpose: timeout (SIGKILL when SIGTERM was not enough within the grace).
      timers.push(setTimeout(() => killGroup(child.pid, 'SIGKILL'), options.killGraceMs ?? 1000));
      // Pipes held open by an escaped grandchild must not keep us waiting forever.
      // Purpose: timeout (stop reading pipes an escaped grandchild holds).
      timers.push(
        setTimeout(
          () => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            finish();
          },
          (options.killGraceMs ?? 1000) + 2000,
        ),
      );
    };
    const onAbort = (): void => stop('signal');
    options.signal.addEventListener('abort', onAbort, { once: true });
    // Purpose: timeout (the command's own time limit).
    if (options.timeoutMs !== undefined && options.timeoutMs > 0)
      timers.push(setTimeout(() => stop('timeout'), options.timeoutMs));

    attachChild(child, outcome, options, finish);
  });
}

/** Collects the child's output, feeds its input, and settles the run once it has exited and its pipes closed. */
function attachChild(
  child: ChildProcess,
  outcome: ProcessOutcome,
  options: RunProcessOptions,
  finish: () => void,
): void {
  attachCollectors(child.stdout, child.stderr, outcome, options);
  if (options.input !== undefined && child.stdin) {
    child.stdin.on('error', () => undefined); // EPIPE when the program exits without reading; its outcome says why.
    child.stdin.end(options.input);
  }
  child.on('error', (error: NodeJS.ErrnoException) => {
    outcome.spawnError = error;
    finish();
  });
  child.on('exit', (code, signal) => {
    outcome.exitCode = code;
    outcome.exitSignal = signal;
    // The leader is gone; anything left in its group (background jobs) goes too when we were stopping it.
    if (outcome.timedOut || outcome.cancelled) killGroup(child.pid, 'SIGKILL');
  });
  child.on('close', finish);
}

function attachCollectors(
  stdout: Readable | null,
  stderr: Readable | null,
  outcome: ProcessOutcome,
  options: RunProcessOptions,
): void {
  const max = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT;
  const collect =
    (stream: 'stdout' | 'stderr') =>
    (chunk: string): void => {
      options.onOutput?.(chunk, stream);
      const room = max - outcome[stream].length;
      if (chunk.length > room) outcome.outputCapped = true;
      if (room > 0) outcome[stream] += chunk.length > room ? chunk.slice(0, room) : chunk;
    };
  stdout?.setEncoding('utf8').on('data', collect('stdout'));
  stderr?.setEncoding('utf8').on('data', collect('stderr'));
}

function markStop(outcome: ProcessOutcome, signal: AbortSignal): void {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') outcome.timedOut = true;
  else outcome.cancelled = true;
}

export { killGroup };

/** Whether a process is still running (zombies count as gone); used by tests and diagnostics. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return true;
  }
}
