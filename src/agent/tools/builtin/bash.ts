/** The `bash` tool: runs a shell script in the workstream's directory, streaming its output. */
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';
import type { ProcessOutcome } from '../run-process.js';
import { runContained, sandboxRefusal } from '../run-contained.js';

/** Substrings that refuse a command outright. A soft guard only: approval is the real boundary. */
export const BLOCKED_COMMAND_PATTERNS: readonly string[] = [
  'rm -rf /*',
  'rm -rf /',
  'mkfs',
  'shutdown',
  'reboot',
  'halt',
  'poweroff',
  'dd if=',
  ':(){ :|:& };:',
  '> /dev/sda',
  'mv / ',
  'chmod -R 777 /',
  'chown -R ',
];

/** Replaces typographic quotes and dashes that models sometimes emit with their ASCII forms. */
export function sanitizeCommand(command: string): string {
  return command.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/[–—]/g, '-');
}

/** The first blocklisted pattern the command contains, if any. */
export function findBlockedPattern(command: string): string | undefined {
  const trimmed = command.trim();
  const rootWipe =
    /(^|[\s;&|(])rm\s+(-[a-zA-Z]*[rR][a-zA-Z]*f[a-zA-Z]*|-[a-zA-Z]*f[a-zA-Z]*[rR][a-zA-Z]*)\s+(--no-preserve-root\s+)?\/(\*)?(\s|$|;|&|\|)/.exec(
      trimmed,
    );
  if (rootWipe) return rootWipe[4] === '*' ? 'rm -rf /*' : 'rm -rf /';
  return BLOCKED_COMMAND_PATTERNS.filter((pattern) => !pattern.startsWith('rm -rf')).find((pattern) =>
    matchesPattern(trimmed, pattern),
  );
}

function matchesPattern(command: string, pattern: string): boolean {
  // Word-like patterns must stand alone (so "asphalt" does not match "halt"); symbol patterns match as substrings.
  if (/^[a-z]+$/.test(pattern)) return new RegExp(`(^|[^\\w.-])${pattern}(?![\\w-])`).test(command);
  return command.includes(pattern);
}

function headerFor(command: string): string {
  const lines = command.split('\n');
  const more = lines.length - 1;
  return `⚙ bash: ${lines[0] ?? ''}${more > 0 ? ` ... (${more} more lines)` : ''}`;
}

function prepare(args: Record<string, unknown>): ToolPreparation {
  const command = sanitizeCommand(typeof args['command'] === 'string' ? args['command'] : '');
  if (command.trim() === '') {
    return {
      header: '✗ bash: empty command',
      preview: '',
      needsApproval: false,
      approvalLabel: 'bash',
      error: 'Error: empty command',
    };
  }
  const blocked = findBlockedPattern(command);
  if (blocked !== undefined) {
    const error = `Blocked: command matches dangerous pattern '${blocked}'`;
    return { header: `✗ ${error}`, preview: command, needsApproval: false, approvalLabel: 'bash', error };
  }
  return { header: headerFor(command), preview: command, needsApproval: true, approvalLabel: 'bash' };
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const prepared = prepare(args);
  if (prepared.error !== undefined) return { output: prepared.error, isError: true };
  const command = sanitizeCommand(String(args['command']));
  const cpuSeconds = context.timeoutMs > 0 ? Math.ceil(context.timeoutMs / 1000) + 1 : undefined;
  const outcome = await runContained('bash', ['-c', command], context, {
    ...(cpuSeconds === undefined ? {} : { limits: { cpuSeconds } }),
    signal: context.signal,
    withNetwork: true,
    ...(context.timeoutMs > 0 ? { timeoutMs: context.timeoutMs } : {}),
    ...(context.onOutput ? { onOutput: forwardChunk(context.onOutput) } : {}),
  });
  if (outcome.cancelled) {
    context.signal.throwIfAborted();
  }
  const refused = sandboxRefusal(outcome);
  if (refused !== undefined) return { output: refused, isError: true };
  return describeOutcome(outcome, context.timeoutMs);
}

function forwardChunk(onOutput: (chunk: string) => void): (chunk: string) => void {
  return (chunk) => {
    try {
      onOutput(chunk);
    } catch {
      // A failing display must not break the command; the final result still carries all output.
    }
  };
}

/** Combined output (stdout, then stderr) with the exit code line the model relies on. */
export function describeOutcome(outcome: ProcessOutcome, timeoutMs: number): ToolResult {
  if (outcome.spawnError !== undefined) {
    const program = outcome.spawnError.path ?? 'bash';
    return {
      output: `Error executing command: could not start ${program} (${outcome.spawnError.code ?? 'spawn error'})`,
      isError: true,
    };
  }
  const stdout = outcome.stdout.replace(/\s+$/, '');
  const stderr = outcome.stderr.replace(/\s+$/, '');
  const combined = [stdout, stderr].filter((part) => part !== '').join('\n');
  if (outcome.timedOut) {
    const seconds = Math.round(timeoutMs / 100) / 10;
    const note = `Command timed out after ${seconds}s; its process group was killed.`;
    return { output: combined === '' ? note : `${note}\nOutput before the timeout:\n${combined}`, isError: true };
  }
  let output = combined;
  if (outcome.outputCapped) output += '\n[output capped: the command printed more than could be kept]';
  const limit = limitNote(outcome);
  if (limit !== undefined) output += `${output === '' ? '' : '\n'}${limit}`;
  else if (outcome.exitSignal !== null)
    output += `${output === '' ? '' : '\n'}[killed by signal ${outcome.exitSignal}]`;
  else if (outcome.exitCode !== 0)
    output += `${output === '' ? '' : '\n'}[exit code: ${outcome.exitCode ?? 'unknown'}]`;
  return { output: output === '' ? '(no output)' : output, isError: false };
}

/** A plain-language note when the command died of a resource limit (exit 128+n from the sandbox's shell). */
function limitNote(outcome: ProcessOutcome): string | undefined {
  const signal =
    outcome.exitSignal ?? (outcome.exitCode !== null && outcome.exitCode > 128 ? outcome.exitCode - 128 : undefined);
  if (signal === 'SIGXCPU' || signal === 24) return '[stopped: CPU time limit reached]';
  if (signal === 'SIGXFSZ' || signal === 25) return '[stopped: file size limit reached]';
  return undefined;
}

/** Handler of the `bash` tool. */
export const bashHandler: ToolHandler = { name: 'bash', prepare, execute };
