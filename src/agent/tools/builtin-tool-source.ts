/** The built-in tool registry: definitions from tools/*.json joined with their handlers, as a ToolSource. */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { isAbortError } from '../../shared/abort.js';
import { describeError } from '../../shared/errors.js';
import { fenceUntrusted, type FenceOrigin } from '../../shared/untrusted-fence.js';
import { describeProcessReach, NO_SANDBOX, type Sandbox } from '../sandbox/sandbox.js';
import type { ToolContext, ToolDefinition, ToolHandler, ToolPreparation, ToolResult, ToolSource } from './tool.js';
import { NO_EXTRA_ACCESS, type ToolAccess } from './tool-access.js';
import { truncateOutput } from './truncate-output.js';

/** Where the built-in tools may reach: file roots and protected paths, and the sandbox of their processes. */
export interface ToolContainment {
  access: ToolAccess;
  sandbox: Sandbox;
}

/** Tools whose approval card carries the reach of a contained process. */
const PROCESS_TOOLS: ReadonlySet<string> = new Set(['bash', 'math', 'watch']);
/** Tools that do nothing but start a process: refused before any card when the host has no working sandbox. */
const PROCESS_ONLY_TOOLS: ReadonlySet<string> = new Set(['bash', 'math', 'man', 'watch']);
const FILE_WRITE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/** Tools whose text results are someone else's words (a file, a web page): they reach the model fenced as data. */
const FENCED_TOOLS: Readonly<Record<string, (args: Record<string, unknown>) => FenceOrigin>> = {
  read_file: (args) => ({ source: 'file', attributes: { path: String(args['path'] ?? '') } }),
  web_fetch: (args) => ({ source: 'web_fetch', attributes: { url: String(args['url'] ?? '') } }),
};

/** Tools whose text output is cut to `context.outputLimit`. */
const TRUNCATED_TOOLS: ReadonlySet<string> = new Set(['bash', 'read_file', 'search', 'math', 'man']);

interface RegisteredTool {
  definition: ToolDefinition;
  handler: ToolHandler;
  /** The arguments' validator, compiled at the tool's first call (see compiledOnUse). */
  validate: () => Promise<ValidateFunction>;
}

/**
 * Compiles `schema` the first time the validator is asked for, with ajv loaded at the first call of any tool: ajv's
 * modules take about 40 ms to load and each schema about 3 ms to compile, which a gateway (and each gateway a test
 * starts) would otherwise pay at start for tools it may never call. The shipped definitions are checked as strict JSON
 * Schemas by the tests (load-tool-definitions.test.ts).
 */
function compiledOnUse(ajv: () => Promise<Ajv>, schema: ToolDefinition['parameters']): () => Promise<ValidateFunction> {
  let validate: Promise<ValidateFunction> | undefined;
  return () => (validate ??= ajv().then((loaded) => loaded.compile(schema)));
}

/** Lists and runs the built-in tools that have a handler; definitions without one stay hidden. */
export class BuiltinToolSource implements ToolSource {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #containment: ToolContainment;

  constructor(
    definitions: readonly ToolDefinition[],
    handlers: ReadonlyMap<string, ToolHandler> | readonly ToolHandler[],
    containment: ToolContainment = { access: NO_EXTRA_ACCESS, sandbox: NO_SANDBOX },
  ) {
    this.#containment = containment;
    const byName = new Map<string, ToolHandler>(
      Array.isArray(handlers)
        ? (handlers as readonly ToolHandler[]).map((handler) => [handler.name, handler])
        : (handlers as ReadonlyMap<string, ToolHandler>),
    );
    let loaded: Promise<Ajv> | undefined;
    const ajv = (): Promise<Ajv> =>
      (loaded ??= import('ajv').then(({ Ajv }) => new Ajv({ allErrors: true, coerceTypes: true, strict: false })));
    for (const definition of definitions) {
      const handler = byName.get(definition.name);
      if (handler === undefined) continue;
      this.#tools.set(definition.name, { definition, handler, validate: compiledOnUse(ajv, definition.parameters) });
    }
  }

  /** Definitions of the tools that have a handler, sorted by name. */
  listTools(signal?: AbortSignal): Promise<ToolDefinition[]> {
    signal?.throwIfAborted();
    return Promise.resolve([...this.#tools.values()].map((tool) => tool.definition));
  }

  hasTool(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Schema-checks the arguments, then asks the handler for header, preview and approval facts. Never throws. */
  async prepare(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation> {
    const tool = this.#tools.get(name);
    if (tool === undefined) return errorPreparation(name, `Unknown tool: ${name}`);
    const checked = await validateArguments(tool, args);
    if (typeof checked === 'string') return errorPreparation(name, checked);
    const refusal = (context.sandbox ?? this.#containment.sandbox).refusal;
    if (refusal !== undefined && PROCESS_ONLY_TOOLS.has(name)) return errorPreparation(name, refusal);
    try {
      const prepared = await tool.handler.prepare(checked, this.#contain(context));
      return prepared.needsApproval && prepared.error === undefined
        ? { ...prepared, header: `${prepared.header}${this.#reach(name)}` }
        : prepared;
    } catch (error) {
      context.logger.warn({ tool: name, err: describeError(error) }, 'tool prepare threw');
      return errorPreparation(name, `Error: could not prepare ${name}: ${describeError(error)}`);
    }
  }

  /** Runs one call under the per-call timeout; failures become `isError` results, aborts propagate. */
  async callTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
    const tool = this.#tools.get(name);
    if (tool === undefined) return { output: `Unknown tool: ${name}`, isError: true };
    const checked = await validateArguments(tool, args);
    if (typeof checked === 'string') return { output: checked, isError: true };
    context.signal.throwIfAborted();
    const result = await runWithTimeout(tool.handler, checked, this.#contain(context));
    const output =
      TRUNCATED_TOOLS.has(name) && typeof result.output === 'string'
        ? truncateOutput(result.output, context.outputLimit)
        : result.output;
    // Fenced after the cut, so the closing tag is always there; our own error texts stay plain.
    const fence = FENCED_TOOLS[name];
    if (fence !== undefined && typeof output === 'string' && !result.isError)
      return { output: fenceUntrusted(fence(checked), output), isError: false };
    return output === result.output ? result : { output, isError: result.isError };
  }

  /** The context a handler sees: the source's containment, unless the caller set its own. */
  #contain(context: ToolContext): ToolContext {
    return {
      ...context,
      access: context.access ?? this.#containment.access,
      sandbox: context.sandbox ?? this.#containment.sandbox,
    };
  }

  /** The reach note appended to an approval card's header, so the owner knows what approving lets the call touch. */
  #reach(name: string): string {
    if (PROCESS_TOOLS.has(name)) return ` — reach: ${describeProcessReach(this.#containment.sandbox)}`;
    if (FILE_WRITE_TOOLS.has(name)) return ' — reach: this file only (inside the workspace)';
    return '';
  }
}

function errorPreparation(name: string, error: string): ToolPreparation {
  const firstLine = error.split('\n', 1)[0] ?? error;
  return {
    header: `✗ ${name}: ${firstLine.replace(/^Error:\s*/, '')}`,
    preview: '',
    needsApproval: false,
    approvalLabel: name,
    error,
  };
}

/** Returns the (type-coerced) arguments, or the error text the model reads. */
async function validateArguments(
  tool: RegisteredTool,
  args: Record<string, unknown>,
): Promise<Record<string, unknown> | string> {
  const copy = structuredClone(args);
  let validate: ValidateFunction;
  try {
    validate = await tool.validate();
  } catch (error) {
    // A definition that is no JSON Schema (the shipped ones are checked by the tests): the call is refused, not thrown.
    return `Error: the definition of ${tool.definition.name} is not a valid JSON Schema: ${describeError(error)}`;
  }
  if (validate(copy)) return copy;
  const problems = (validate.errors ?? []).map(describeSchemaError);
  return `Error: invalid arguments for ${tool.definition.name}: ${[...new Set(problems)].join('; ')}`;
}

function describeSchemaError(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'arguments' : `'${error.instancePath.slice(1).replaceAll('/', '.')}'`;
  if (error.keyword === 'required') return `missing required argument '${String(error.params['missingProperty'])}'`;
  if (error.keyword === 'enum') {
    const allowed = (error.params['allowedValues'] as unknown[] | undefined) ?? [];
    return `${where} must be one of ${allowed.map((value) => JSON.stringify(value)).join(', ')}`;
  }
  return `${where} ${error.message ?? 'is invalid'}`;
}

async function runWithTimeout(
  handler: ToolHandler,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolResult> {
  const timeoutMs = context.timeoutMs > 0 ? context.timeoutMs : undefined;
  // An own (referenced) timer rather than AbortSignal.timeout, so a pending call keeps the process alive.
  const timeout = new AbortController();
  // Purpose: timeout (the tool call is aborted after timeoutMs).
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => timeout.abort(new DOMException('tool call timed out', 'TimeoutError')), timeoutMs);
  const signal = AbortSignal.any([context.signal, timeout.signal]);
  const seconds = timeoutMs === undefined ? 0 : Math.round(timeoutMs / 100) / 10;
  const timedOut: ToolResult = { output: `Error: ${handler.name} timed out after ${seconds}s`, isError: true };
  let stopWaiting: (() => void) | undefined;
  // Settles when the signal aborts, so a handler that ignores its signal cannot hold the turn.
  const aborted = new Promise<'aborted'>((resolve) => {
    const onAbort = (): void => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    stopWaiting = () => signal.removeEventListener('abort', onAbort);
  });
  const running = handler.execute(args, { ...context, signal });
  try {
    const outcome = await Promise.race([running, aborted]);
    if (outcome !== 'aborted') return outcome;
    void running.catch((error: unknown) =>
      context.logger.debug({ tool: handler.name, err: describeError(error) }, 'late tool failure'),
    );
    context.signal.throwIfAborted();
    // The handler may have produced its own timeout result (bash says which process group it killed).
    const grace = delay(2000);
    const late = await Promise.race([running.catch(() => timedOut), grace.promise.then(() => timedOut)]);
    grace.cancel();
    return late;
  } catch (error) {
    if (context.signal.aborted) throw error;
    if (isAbortError(error) || timeout.signal.aborted) return timedOut;
    context.logger.warn({ tool: handler.name, err: describeError(error) }, 'tool execution failed');
    return { output: `Error: ${handler.name} failed: ${describeError(error)}`, isError: true };
  } finally {
    clearTimeout(timer);
    stopWaiting?.();
  }
}

function delay(ms: number): { promise: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<void>((resolve) => {
    // Purpose: timeout (the grace a cancelled call gets to finish).
    timer = setTimeout(resolve, ms);
  });
  return { promise, cancel: () => clearTimeout(timer) };
}
