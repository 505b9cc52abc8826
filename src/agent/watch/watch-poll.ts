/** Runs one poll of a watch's command with the same process runner (and shell) as the bash tool. */
import { runProcess } from '../tools/run-process.js';

/** Output a watch keeps and reports per poll (reference §7.1), in characters. */
export const MAX_WATCH_OUTPUT = 65_536;

export interface PollOutcome {
  output: string;
  exitCode: number;
}

export async function runWatchCommand(command: string, options: { cwd: string; timeoutMs: number; signal: AbortSignal }): Promise<PollOutcome> {
  const outcome = await runProcess('bash', ['-c', command], {
    cwd: options.cwd,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxOutputChars: MAX_WATCH_OUTPUT + 1,
  });
  options.signal.throwIfAborted();
  if (outcome.spawnError !== undefined) return { output: `[command failed: ${outcome.spawnError.code ?? outcome.spawnError.message}]`, exitCode: -1 };
  if (outcome.timedOut) return { output: `[command timed out after ${Math.round(options.timeoutMs / 1000)}s]`, exitCode: -1 };
  const combined = outcome.stdout ? (outcome.stderr ? `${outcome.stdout}\n[stderr]\n${outcome.stderr}` : outcome.stdout) : outcome.stderr;
  return { output: capOutput(combined), exitCode: outcome.exitCode ?? -1 };
}

export function capOutput(output: string): string {
  return output.length > MAX_WATCH_OUTPUT ? `${output.slice(0, MAX_WATCH_OUTPUT)}\n[truncated at ${MAX_WATCH_OUTPUT} characters]` : output;
}
