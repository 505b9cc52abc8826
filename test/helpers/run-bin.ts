/** Runs the real `sandpiper` bin as a child process with a clean environment, and follows a long-running one. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { packageRoot } from '../../src/shared/package-root.js';

/** The repository, also when the test runs as a compiled copy (scripts/run-tests.mjs). */
export const repoRoot = packageRoot(import.meta.url);
export const binPath = path.join(repoRoot, 'bin', 'sandpiper.js');

/** PATH and HOME only (no SANDPIPER_* from the caller), JSON logs, plus `extra`; runBin and BinProcess add XDG_STATE_HOME. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env['PATH'], HOME: process.env['HOME'], SANDPIPER_LOG_FORMAT: 'json', ...extra };
}

/** Without a config file the data lives in $XDG_STATE_HOME/sandpiper: one state folder per working folder keeps tests apart. */
export function stateDirFor(cwd: string): string {
  return path.join(cwd, '.state', 'sandpiper');
}

/** `env` with `XDG_STATE_HOME` set to the state home of `cwd` when the caller did not set one. */
export function withStateHome(env: NodeJS.ProcessEnv, cwd: string): NodeJS.ProcessEnv {
  return env['XDG_STATE_HOME'] === undefined ? { ...env, XDG_STATE_HOME: path.dirname(stateDirFor(cwd)) } : env;
}

export interface BinResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command to completion. */
export function runBin(args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): BinResult {
  const result = spawnSync(process.execPath, [binPath, ...args], {
    cwd,
    env: withStateHome(env, cwd),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs one command to completion without blocking the event loop (needed when fakes in this process must answer it). */
export async function runBinAsync(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<BinResult> {
  const child = new BinProcess(args, cwd, env);
  const code = await child.exit(60_000);
  return { code, stdout: child.stdout, stderr: child.stderr };
}

/** A running `sandpiper` process: its combined output so far, a wait for a log line, and its exit. */
export class BinProcess {
  /** stdout and stderr interleaved as they arrived. */
  output = '';
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  /** `stdin: true` gives the process a pipe to `type` into (else its standard input is closed). */
  constructor(
    private readonly args: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    options: { stdin?: boolean } = {},
  ) {
    const stdin = options.stdin === true ? 'pipe' : 'ignore';
    this.child = spawn(process.execPath, [binPath, ...args], {
      cwd,
      env: withStateHome(env, cwd),
      stdio: [stdin, 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString();
      this.output += chunk.toString();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      this.output += chunk.toString();
    });
    // 'close' (not 'exit'): every byte of output has been read by then.
    this.exited = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  /** Resolves with the first match of `pattern` in the output; rejects when the process exits first or on timeout. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null)
        throw new Error(`exited (${this.child.exitCode}) before ${pattern}; output: ${this.output}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output: ${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Types a line into the process's standard input (`stdin: true` only). */
  type(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  /** Sends `signal` and resolves with the exit code; rejects (and kills the process) when it has not exited in time. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 30_000): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exit(timeoutMs);
  }

  /** The exit code; a process still running (or holding its output open) after `timeoutMs` is killed, and this rejects. */
  async exit(timeoutMs: number): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const state = `exit code ${this.child.exitCode}, signal ${this.child.signalCode}`;
        this.kill();
        reject(
          new Error(
            `sandpiper ${this.args.join(' ')} did not end within ${timeoutMs} ms (${state}); output: ${this.output.slice(-3000)}`,
          ),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Test clean-up: SIGKILL when still running. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

/** Long-running bins a test file starts, all killed by one call in its `after`. */
export class StartedBins {
  private readonly started: BinProcess[] = [];

  start(args: string[], cwd: string, env: NodeJS.ProcessEnv): BinProcess {
    const child = new BinProcess(args, cwd, env);
    this.started.push(child);
    return child;
  }

  killAll(): void {
    for (const child of this.started) child.kill();
  }
}
