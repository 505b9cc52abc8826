/**
 * The sandbox check: the tools' own detection (`detectSandbox` of src/agent/sandbox, the exact bwrap flags the tools
 * use). The older stand-in `detectSandbox` below stays exported for callers that still use it.
 */
import { execFile } from 'node:child_process';
import { detectSandbox as detectToolSandbox, SANDBOX_FIX } from '../agent/sandbox/detect-sandbox.js';
import { ok, warn, type CheckResult } from './doctor-check.js';

export interface SandboxDetection {
  available: boolean;
  /** What was found (`bwrap 0.11.0`), or why it is unusable. */
  detail: string;
}

function run(
  command: string,
  args: readonly string[],
): Promise<{ code: number | null; output: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 5000 }, (error, stdout, stderr) => {
      const missing = (error as { code?: unknown } | null)?.code === 'ENOENT';
      const code = error
        ? typeof (error as { code?: unknown }).code === 'number'
          ? (error as { code: number }).code
          : 1
        : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim(), missing });
    });
  });
}

/** Stand-in detection: `bwrap --version`, then a trivial sandboxed `true` (fails where user namespaces are off). */
export async function detectSandbox(): Promise<SandboxDetection> {
  const version = await run('bwrap', ['--version']);
  if (version.missing) return { available: false, detail: 'bubblewrap (bwrap) is not installed' };
  const trial = await run('bwrap', [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--unshare-all',
    '--die-with-parent',
    'true',
  ]);
  if (trial.code !== 0)
    return {
      available: false,
      detail: `${version.output || 'bwrap'} cannot create a sandbox here: ${trial.output.split('\n')[0] ?? 'failed'}`,
    };
  return { available: true, detail: version.output || 'bwrap' };
}

/** The containment module's own probe (the exact flags the tools run with), as a doctor detection. */
async function containmentProbe(): Promise<SandboxDetection> {
  const status = await detectToolSandbox({ mode: 'auto' });
  return {
    available: status.kind === 'bwrap',
    detail:
      status.kind === 'bwrap'
        ? `bubblewrap${status.runsAsRoot ? ' (running as root: the process limit is not enforced)' : ''}`
        : status.reason,
  };
}

/** The containment module's detection; swappable (tests). */
let sandboxProbe: () => Promise<SandboxDetection> = containmentProbe;

/** Replaces the probe (the containment module, tests). */
export function setSandboxProbe(probe: () => Promise<SandboxDetection>): void {
  sandboxProbe = probe;
}

export async function checkSandbox(): Promise<CheckResult> {
  const found = await sandboxProbe();
  if (found.available) return ok('sandbox', found.detail);
  return warn(
    'sandbox',
    `${found.detail}; with tools.sandbox = "auto" bash, math, man, watch commands and sandboxed MCP servers are refused`,
    SANDBOX_FIX,
  );
}
