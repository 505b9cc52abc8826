/** Starts a stdio MCP server with `sandbox = true` inside the tool sandbox, with its own writable folder. */
import { mkdir } from 'node:fs/promises';
import { SANDBOX_FIX } from '../sandbox/detect-sandbox.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { findExecutable } from '../tools/run-contained.js';
import { McpCallError } from './mcp-call-error.js';
import type { McpServerSpec } from './mcp-server-spec.js';

export interface McpSandbox {
  sandbox: Sandbox;
  /** The writable folder of a server without a configured cwd (e.g. `<data_dir>/mcp/<name>`). */
  workDir: (serverName: string) => string;
}

/** A server is long-lived: its CPU time is bounded by the day, not by the tool time-out. */
const SERVER_CPU_SECONDS = 24 * 60 * 60;

/** The command, arguments and cwd a stdio server starts with; sandboxed ones go through bwrap or fail to start. */
export async function stdioLaunch(
  spec: McpServerSpec,
  sandbox: McpSandbox | undefined,
): Promise<{ command: string; args: string[]; cwd?: string }> {
  const plain = { command: spec.command, args: spec.args, ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}) };
  if (spec.sandbox !== true) return plain;
  if (sandbox === undefined || sandbox.sandbox.kind !== 'bwrap') {
    if (spec.unsandboxedFallback === true) return plain;
    throw new McpCallError(
      'transport',
      unavailableReason(spec, sandbox?.sandbox.status.reason ?? 'no sandbox configured'),
    );
  }
  const executable = await findExecutable(spec.command);
  if (executable === undefined)
    throw new McpCallError('transport', `MCP server '${spec.name}': command '${spec.command}' not found`);
  const cwd = spec.cwd ?? sandbox.workDir(spec.name);
  await mkdir(cwd, { recursive: true });
  const wrapped = sandbox.sandbox.wrap(executable, spec.args, {
    writable: cwd,
    limits: { cpuSeconds: SERVER_CPU_SECONDS },
  });
  return { command: wrapped.command, args: wrapped.args, cwd };
}

function unavailableReason(spec: McpServerSpec, why: string): string {
  if (spec.source === 'database') {
    return (
      `MCP server '${spec.name}' was added at run time and runs in the tool sandbox, but no sandbox is available on this host ` +
      `(${why}); not started (the config file may allow it unsandboxed: mcp.allow_unsandboxed_runtime_servers = true). To fix it, ${SANDBOX_FIX}`
    );
  }
  return `MCP server '${spec.name}' has sandbox = true but no sandbox is available on this host (${why}); not started. To fix it, ${SANDBOX_FIX}`;
}
