/** Runs a tool's child process through the call's sandbox (bubblewrap and/or prlimit), in the workstream folder. */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { processEnvironment } from '../../shared/environment.js';
import type { Logger } from '../../shared/logger.js';
import { NO_SANDBOX, type EgressRequest } from '../sandbox/sandbox.js';
import type { ResourceLimits } from '../sandbox/resource-limits.js';
import { runProcess, type ProcessOutcome, type RunProcessOptions } from './run-process.js';
import type { ToolContext } from './tool.js';

/** The spawn error code of a process refused because the host has no working sandbox. */
export const SANDBOX_REFUSED = 'ESANDBOX';

/** The refusal text when `outcome` was refused for the lack of a sandbox (the tool's whole result). */
export function sandboxRefusal(outcome: ProcessOutcome): string | undefined {
  return outcome.spawnError?.code === SANDBOX_REFUSED ? outcome.spawnError.message : undefined;
}

function notStarted(spawnError: NodeJS.ErrnoException): ProcessOutcome {
  return {
    stdout: '',
    stderr: '',
    exitCode: null,
    exitSignal: null,
    timedOut: false,
    cancelled: false,
    outputCapped: false,
    spawnError,
  };
}

/** The executable `program` names: itself when it has a slash, else the first match on PATH. */
export async function findExecutable(program: string): Promise<string | undefined> {
  const candidates = program.includes('/')
    ? [program]
    : (processEnvironment()['PATH'] ?? '')
        .split(path.delimiter)
        .filter((entry) => entry !== '')
        .map((entry) => path.join(entry, program));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

/** What a contained run needs of the call: the folder and sandbox; the rest only for the egress proxy. */
export type ContainedContext = Pick<ToolContext, 'cwd' | 'sandbox'> &
  Partial<Pick<ToolContext, 'workstreamId' | 'logger' | 'network' | 'toolName'>>;

/**
 * Like runProcess, but contained. A program that is not installed comes back as an ENOENT spawn error (as it would
 * without the wrapper), since bwrap and prlimit would otherwise report it as their own exit status. On a host whose
 * sandbox is unavailable nothing starts: the outcome is an `ESANDBOX` spawn error whose message says why and the fix.
 */
export async function runContained(
  program: string,
  args: readonly string[],
  context: ContainedContext,
  options: Omit<RunProcessOptions, 'cwd'> & { limits?: Partial<ResourceLimits>; withNetwork?: boolean },
): Promise<ProcessOutcome> {
  const sandbox = context.sandbox ?? NO_SANDBOX;
  if (sandbox.refusal !== undefined)
    return notStarted(Object.assign(new Error(sandbox.refusal), { code: SANDBOX_REFUSED, path: program }));
  const executable = await findExecutable(program);
  if (executable === undefined)
    return notStarted(Object.assign(new Error(`spawn ${program} ENOENT`), { code: 'ENOENT', path: program }));
  const { limits, withNetwork, ...runOptions } = options;
  // Only calls that may use the network get the egress proxy (`tools.network = "ask"`); the others have none at all.
  const egress =
    withNetwork === true && context.logger !== undefined
      ? await sandbox.openEgress(egressRequest(program, context.logger, context, options.signal))
      : undefined;
  try {
    const wrapped = sandbox.wrap(executable, args, {
      writable: context.cwd,
      ...(limits === undefined ? {} : { limits }),
      ...(egress === undefined ? {} : { egress }),
    });
    return await runProcess(wrapped.command, wrapped.args, { ...runOptions, cwd: context.cwd });
  } finally {
    await egress?.close();
  }
}

function egressRequest(program: string, logger: Logger, context: ContainedContext, signal: AbortSignal): EgressRequest {
  return {
    tool: context.toolName ?? program,
    workstreamId: context.workstreamId ?? '',
    logger,
    signal,
    ...(context.network === undefined ? {} : { permissions: context.network }),
  };
}
