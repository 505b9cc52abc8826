/** Runs one poll of a watch's command with the same contained runner (shell, sandbox, limits) as the bash tool. */
import type { Sandbox } from '../sandbox/sandbox.js';
import { runContained, sandboxRefusal } from '../tools/run-contained.js';

/** Output a watch keeps and reports per poll, in characters. */
export const MAX_WATCH_OUTPUT = 65_536;

export interface PollOutcome {
  output: string;
  exitCode: number;
}

export async function runWatchCommand(
  command: string,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal; sandbox?: Sandbox },
): Promise<PollOutcome> {
  const context = { cwd: options.cwd, ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }) };
  const outcome = await runContained('bash', ['-c', command], context, {
    limits: { cpuSeconds: Math.ceil(options.timeoutMs / 1000) + 1 },
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxOutputChars: MAX_WATCH_OUTPUT + 1,
  });
  options.signal.throwIfAborted();
  const refused = sandboxRefusal(outcome);
  if (refused !== undefined) return { output: `[${refused}]`, exitCode: -1 };
  if (outcome.spawnError !== undefined)
    return { output: `[command failed: ${outcome.spawnError.code ?? outcome.spawnError.message}]`, exitCode: -1 };
  if (outcome.timedOut)
    return { output: `[command timed out after ${Math.round(options.timeoutMs / 1000)}s]`, exitCode: -1 };
  const combined = outcome.stdout
    ? outcome.stderr
      ? `${outcome.stdout}\n[stderr]\n${outcome.stderr}`
      : outcome.stdout
    : outcome.stderr;
  return { output: capOutput(combined), exitCode: outcome.exitCode ?? -1 };
}

export function capOutput(output: string): string {
  return output.length > MAX_WATCH_OUTPUT
    ? `${output.slice(0, MAX_WATCH_OUTPUT)}\n[truncated at ${MAX_WATCH_OUTPUT} characters]`
    : output;
}
