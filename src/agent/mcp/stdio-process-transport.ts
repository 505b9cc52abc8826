/** A stdio JSON-RPC transport that runs the MCP server in its own process group and kills the whole group on close. */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../shared/logger.js';
import { killGroup } from '../../shared/process-group.js';

export interface StdioProcessOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  logger?: Logger;
  /** How long close() waits after SIGTERM before SIGKILL. */
  killGraceMs?: number;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** Last-resort cleanup: children must not outlive the gateway even when it exits without shutdown(). */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  });
}

/** Structurally compatible with the MCP SDK's Transport interface; knows nothing about MCP itself. */
export class StdioProcessTransport {
  onmessage?: (message: unknown) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private child: ChildProcess | undefined;
  private buffer = '';
  private closed = false;
  private readonly options: StdioProcessOptions;

  constructor(options: StdioProcessOptions) {
    this.options = options;
  }

  /** Process id of the server (also its process-group id), once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('transport already started'));
    installExitHook();
    return new Promise((resolve, reject) => {
      const child = spawn(this.options.command, this.options.args, {
        env: this.options.env,
        ...(this.options.cwd !== undefined ? { cwd: this.options.cwd } : {}),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) liveGroups.add(child.pid);
        resolve();
      });
      child.once('close', () => this.handleExit(child));
      child.stdout?.setEncoding('utf8');
      child.stdout?.on('data', (chunk: string) => this.receive(chunk));
      child.stdin?.on('error', (error) => this.onerror?.(error));
      this.pipeStderr(child);
    });
  }

  send(message: unknown): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed) return Promise.reject(new Error('transport is closed'));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Ends stdin, then SIGTERMs and finally SIGKILLs the process group. Never throws. */
  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    this.closed = true;
    const exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('close', () => resolve());
    });
    const grace = this.options.killGraceMs ?? 2000;
    try {
      child.stdin?.end();
    } catch {
      // The pipe may already be broken; the signals below still end the process.
    }
    if (child.pid !== undefined) killGroup(child.pid, 'SIGTERM');
    if (!(await settlesWithin(exited, grace)) && child.pid !== undefined) {
      killGroup(child.pid, 'SIGKILL');
      await settlesWithin(exited, grace);
    }
    if (child.pid !== undefined) {
      killGroup(child.pid, 'SIGKILL');
      liveGroups.delete(child.pid);
    }
  }

  private handleExit(child: ChildProcess): void {
    if (child.pid !== undefined) {
      // Grandchildren may survive the leader; the group goes with it.
      killGroup(child.pid, 'SIGKILL');
      liveGroups.delete(child.pid);
    }
    this.closed = true;
    this.onclose?.();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let newline = this.buffer.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      newline = this.buffer.indexOf('\n');
      if (line.trim() === '') continue;
      try {
        this.onmessage?.(JSON.parse(line) as unknown);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error('invalid JSON-RPC line'));
      }
    }
  }

  private pipeStderr(child: ChildProcess): void {
    const logger = this.options.logger;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      // Server stderr is diagnostics; keep it at debug level and bounded.
      logger?.debug({ pid: child.pid, stderr: chunk.slice(0, 2000) }, 'MCP server stderr');
    });
  }
}

function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    // Purpose: timeout (how long the process may take to exit).
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
