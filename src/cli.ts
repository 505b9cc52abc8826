/** Command-line entry of the `sandpiper` bin: runs the CLI with the process's argv, streams and signals. */
import { runCli } from './cli/run-cli.js';

const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort());
}
process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  controller.signal,
);
