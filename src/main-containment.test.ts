/** Start-up containment: `bwrap` refuses without bubblewrap, `auto` fails closed with one error, protected paths come from the config. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from './config/index.js';
import { prepareContainment, sqliteFile } from './main-containment.js';
import { ConfigError } from './shared/errors.js';
import { createLogger } from './shared/logger.js';

function recordingLogger(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger({ level: 'warn', format: 'json', destination }) };
}

function configIn(dir: string, sandbox: string): ReturnType<typeof loadConfig> {
  writeFileSync(path.join(dir, 'config.toml'), `[tools]\nsandbox = "${sandbox}"\nread_roots = ["docs"]\n`);
  return loadConfig({ cwd: dir, env: {}, flags: { 'gateway.data_dir': path.join(dir, 'data') } });
}

describe('prepareContainment', () => {
  it('refuses to start with tools.sandbox = "bwrap" when bubblewrap does not work', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-containment-'));
    try {
      const { logger } = recordingLogger();
      await assert.rejects(
        prepareContainment(configIn(dir, 'bwrap'), logger, { bwrapCommand: path.join(dir, 'no-bwrap') }),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(
            error.message,
            /tools\.sandbox: "bwrap" was asked for but bubblewrap unusable: .* is not installed/,
          );
          return true;
        },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails closed under "auto" with one error saying how to fix it, and protects config, data_dir and database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-containment-'));
    try {
      const { lines, logger } = recordingLogger();
      const containment = await prepareContainment(configIn(dir, 'auto'), logger, {
        bwrapCommand: path.join(dir, 'no-bwrap'),
      });
      assert.equal(containment.sandbox.kind, 'unavailable', 'never unconfined by fallback');
      assert.match(containment.sandbox.refusal ?? '', /no-bwrap is not installed/);
      const errors = lines.filter((line) => line.includes('no sandbox'));
      assert.equal(errors.length, 1, lines.join('\n'));
      assert.equal((JSON.parse(errors[0] ?? '{}') as { level?: unknown }).level, 50, 'logged as an error');
      assert.match(errors[0] ?? '', /are refused until you install bubblewrap/);
      assert.match(errors[0] ?? '', /seccomp=deploy\/seccomp-bubblewrap\.json/);
      assert.match(errors[0] ?? '', /tools\.sandbox = \\"off\\"/);
      assert.ok(containment.access.protectedFiles.some((file) => file.endsWith('config.toml')));
      assert.ok(containment.access.protectedFiles.some((file) => file.endsWith(path.join('data', 'sandpiper.db'))));
      assert.ok(containment.access.protectedTrees.some((tree) => tree.endsWith('data')));
      assert.ok(
        containment.access.readRoots.some((root) => root.endsWith('docs')),
        'read_roots resolve against the config file',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the database file out of a sqlite URL only', () => {
    assert.equal(sqliteFile('sqlite:/srv/db.sqlite'), '/srv/db.sqlite');
    assert.equal(sqliteFile('sqlite::memory:'), undefined);
    assert.equal(sqliteFile('postgres://x@y/z'), undefined);
  });
});
