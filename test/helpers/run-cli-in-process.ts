/**
 * Runs one CLI command in this process through `runCli`, the code the bin runs, with stdout and stderr captured: a
 * file with dozens of commands against a database saves a node start-up per command. What only the bin does (argv,
 * exit codes through the process, signals) stays tested through the real bin (`test/helpers/run-bin.ts`, cli.test.ts).
 * Give `--config FILE`: the command does not see a working folder of its own.
 */
import { PassThrough, Writable } from 'node:stream';
import { runCli } from '../../src/cli/run-cli.js';
import type { BinResult } from './run-bin.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export async function runCliInProcess(argv: readonly string[]): Promise<BinResult> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runCli(argv, { stdout, stderr, stdin: new PassThrough() }, new AbortController().signal);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
