/**
 * Runs one CLI command in this process through `runCli`, the code the bin runs, with stdout and stderr captured: a
 * file with dozens of commands saves a node start-up (about half a CPU-second) per command. What only the bin does
 * (argv, exit codes through the process, signals, `start`, what the process logs) stays tested through the real bin
 * (`test/helpers/run-bin.ts`, cli.test.ts). The command reads its configuration as `runBin` would give it: `cwd` for
 * a `config.toml` and relative paths, `env` for the variables (by default `cleanEnv()`, never this process's own), and
 * with `cwd` the state folder `stateDirFor(cwd)`. Without `cwd` give `--config FILE` (and a `data_dir` in it).
 */
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import { cleanEnv, withStateHome, type BinResult } from './run-bin.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export interface InProcessInputs {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export async function runCliInProcess(argv: readonly string[], inputs: InProcessInputs = {}): Promise<BinResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const env = inputs.env ?? cleanEnv();
  const code = await runCli(
    argv,
    { stdout, stderr, stdin: new PassThrough() },
    new AbortController().signal,
    inputs.cwd === undefined ? { env } : { cwd: inputs.cwd, env: withStateHome(env, inputs.cwd) },
  );
  return { code, stdout: stdout.text, stderr: stderr.text };
}
