/** Command-line entry of the `sandpiper` bin: runs the CLI with the process's argv, streams and signals. */
import { runCli } from './cli/run-cli.js';
import { installShutdownSignals } from './cli/shutdown-signals.js';

// A handle left open after a command (a stuck connection after a bounded shutdown) must not keep the process alive.
const EXIT_GRACE_MS = 2000;

const shutdown = installShutdownSignals(process.stderr);
process.exitCode = await runCli(
  process.argv.slice(2),
  { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  shutdown.signal,
);
// Purpose: timeout (an exit grace: a handle left open does not keep the CLI alive). Said on stderr, as it is a defect.
setTimeout(() => {
  process.stderr.write(
    `sandpiper: still running ${EXIT_GRACE_MS / 1000} s after the command ended (a handle left open); exiting\n`,
  );
  process.exit();
}, EXIT_GRACE_MS).unref();
