/** The `math` tool: runs Python code in a restricted python3 child process with time and memory limits. */
import { processEnvironment } from '../../../shared/environment.js';
import { isPlainObject, safeParseJson } from '../../../shared/json.js';
import { MATH_ALLOWED_MODULES, MATH_SANDBOX_SCRIPT } from '../math-sandbox-script.js';
import { runContained, sandboxRefusal } from '../run-contained.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

export interface MathHandlerOptions {
  /** Python interpreter (default `python3`). */
  pythonCommand?: string;
  /** Address-space limit of the child (default 1 GiB). */
  memoryLimitBytes?: number;
  /** Wall-clock limit when the context has none (default 30 s). */
  defaultTimeoutMs?: number;
}

/** Environment variables passed to the child; everything else (API keys included) stays out. */
const PASSED_ENV = ['PATH', 'HOME', 'LANG', 'LC_ALL', 'PYENV_ROOT', 'PYENV_VERSION', 'TMPDIR'];

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  for (const key of PASSED_ENV) {
    const value = processEnvironment()[key];
    if (value !== undefined) env[key] = value;
  }
  return env;
}

function prepare(args: Record<string, unknown>): ToolPreparation {
  const code = typeof args['code'] === 'string' ? args['code'] : '';
  if (code.trim() === '')
    return {
      header: '✗ math: no code provided',
      preview: '',
      needsApproval: false,
      approvalLabel: 'math',
      error: 'Error: no code provided',
    };
  return {
    header: `⚙ math: (${code.length} chars)`,
    preview: code.slice(0, 300),
    needsApproval: true,
    approvalLabel: 'math',
  };
}

async function execute(
  args: Record<string, unknown>,
  context: ToolContext,
  options: MathHandlerOptions,
): Promise<ToolResult> {
  const code = typeof args['code'] === 'string' ? args['code'] : '';
  if (code.trim() === '') return { output: 'Error: no code provided', isError: true };
  const timeoutMs = context.timeoutMs > 0 ? context.timeoutMs : (options.defaultTimeoutMs ?? 30_000);
  const cpuSeconds = Math.max(1, Math.ceil(timeoutMs / 1000) + 1);
  const memory = options.memoryLimitBytes ?? 1024 * 1024 * 1024;
  const python = options.pythonCommand ?? 'python3';
  const outcome = await runContained(
    python,
    ['-I', '-c', MATH_SANDBOX_SCRIPT, String(memory), String(cpuSeconds), MATH_ALLOWED_MODULES.join(',')],
    context,
    {
      limits: { cpuSeconds: cpuSeconds + 1 },
      signal: context.signal,
      timeoutMs,
      env: childEnv(),
      input: code,
      maxOutputChars: 4 * 1024 * 1024,
    },
  );
  if (outcome.cancelled) context.signal.throwIfAborted();
  const refused = sandboxRefusal(outcome);
  if (refused !== undefined) return { output: refused, isError: true };
  if (outcome.spawnError !== undefined) {
    const missing = outcome.spawnError.code === 'ENOENT';
    return {
      output: missing
        ? `Error: ${python} is not installed on this host, so the math tool is unavailable`
        : `Error: could not start ${python} (${outcome.spawnError.code ?? 'spawn error'})`,
      isError: true,
    };
  }
  if (outcome.timedOut)
    return { output: `Error:\nExecution timed out after ${Math.round(timeoutMs / 100) / 10}s`, isError: true };
  return interpret(outcome.stdout, outcome.exitSignal);
}

function interpret(stdout: string, exitSignal: NodeJS.Signals | null): ToolResult {
  const parsed = safeParseJson(stdout.trim());
  if (!parsed.ok || !isPlainObject(parsed.value)) {
    if (exitSignal === 'SIGXCPU' || exitSignal === 'SIGKILL')
      return { output: 'Error:\nExecution stopped: CPU time limit exceeded', isError: true };
    return { output: 'Error:\nExecution failed with no output', isError: true };
  }
  const report = parsed.value;
  const text = (key: string): string => (typeof report[key] === 'string' ? report[key] : '');
  switch (report['status']) {
    case 'ok':
      return {
        output: text('output') === '' ? 'No output. Add print() to see results.' : text('output'),
        isError: false,
      };
    case 'syntax':
      return { output: `Error:\n${text('message')}`, isError: true };
    case 'invalid': {
      const errors = Array.isArray(report['errors']) ? report['errors'].map(String) : [];
      return { output: `Error:\nValidation errors:\n${errors.map((line) => `- ${line}`).join('\n')}`, isError: true };
    }
    default: {
      const printed = text('output').trimEnd();
      return {
        output: `Error:\n${text('message')}${printed === '' ? '' : `\nOutput before the error:\n${printed}`}`,
        isError: true,
      };
    }
  }
}

/** Creates the `math` handler (tests point it at a missing interpreter or lower the limits). */
export function createMathHandler(options: MathHandlerOptions = {}): ToolHandler {
  return { name: 'math', prepare, execute: (args, context) => execute(args, context, options) };
}

/** Handler of the `math` tool with default settings. */
export const mathHandler: ToolHandler = createMathHandler();
