/**
 * A stand-in gateway for the lifeline test: runs one bash script the way the bash tool does (runContained, through
 * the host's sandbox or none), prints "started" once the script runs, and waits to be killed.
 * Usage: node lifeline-tool.js <auto|off> <workspace> <script> (compiled by scripts/run-tests.mjs; the .ts through
 * `node --import tsx` when the test runs from source).
 */
import { detectSandbox, type SandboxMode } from '../../src/agent/sandbox/detect-sandbox.js';
import { createSandbox } from '../../src/agent/sandbox/sandbox.js';
import { runContained } from '../../src/agent/tools/run-contained.js';

const [mode, workspace, script] = process.argv.slice(2) as [SandboxMode, string, string];
const sandbox = createSandbox(await detectSandbox({ mode }));
process.stdout.write(`sandbox ${sandbox.kind}\n`);
const outcome = await runContained(
  'bash',
  ['-c', script],
  { cwd: workspace, sandbox },
  { signal: new AbortController().signal, onOutput: (chunk) => process.stdout.write(chunk) },
);
process.stdout.write(`exited ${String(outcome.exitCode)}\n`);
