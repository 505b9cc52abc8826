/**
 * The sandbox check. The bubblewrap sandbox for tools arrives with its own issue, which exports a detection function;
 * until it is wired here, `detectSandbox` below is a stand-in that looks for a working `bwrap`. Point `sandboxProbe`
 * at the real detection function when it lands (one line), and make a missing sandbox a failure if tools require it.
 */
import { execFile } from 'node:child_process';
import { ok, warn, type CheckResult } from './doctor-check.js';

export interface SandboxDetection {
  available: boolean;
  /** What was found (`bwrap 0.11.0`), or why it is unusable. */
  detail: string;
}

function run(command: string, args: readonly string[]): Promise<{ code: number | null; output: string; missing: boolean }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 5000 }, (error, stdout, stderr) => {
      const missing = (error as { code?: unknown } | null)?.code === 'ENOENT';
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}`.trim(), missing });
    });
  });
}

/** Stand-in detection: `bwrap --version`, then a trivial sandboxed `true` (fails where user namespaces are off). */
export async function detectSandbox(): Promise<SandboxDetection> {
  const version = await run('bwrap', ['--version']);
  if (version.missing) return { available: false, detail: 'bubblewrap (bwrap) is not installed' };
  const trial = await run('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent', 'true']);
  if (trial.code !== 0) return { available: false, detail: `${version.output || 'bwrap'} cannot create a sandbox here: ${trial.output.split('\n')[0] ?? 'failed'}` };
  return { available: true, detail: version.output || 'bwrap' };
}

/** Swappable for the containment module's detection function. */
let sandboxProbe: () => Promise<SandboxDetection> = detectSandbox;

/** Replaces the probe (the containment module, tests). */
export function setSandboxProbe(probe: () => Promise<SandboxDetection>): void {
  sandboxProbe = probe;
}

export async function checkSandbox(): Promise<CheckResult> {
  const found = await sandboxProbe();
  if (found.available) return ok('sandbox', found.detail);
  return warn('sandbox', found.detail, 'install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces to run tools in a sandbox');
}
