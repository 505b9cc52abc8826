/** Start-up containment: `bwrap` refuses without bubblewrap, `auto` warns once, protected paths come from the config. */
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
      await assert.rejects(prepareContainment(configIn(dir, 'bwrap'), logger, { bwrapCommand: path.join(dir, 'no-bwrap') }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /tools\.sandbox: "bwrap" was asked for but bubblewrap unusable: .* is not installed/);
        return true;
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('falls back with one clear warning under "auto", and protects config, data_dir and database', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sp-containment-'));
    try {
      const { lines, logger } = recordingLogger();
      const containment = await prepareContainment(configIn(dir, 'auto'), logger, { bwrapCommand: path.join(dir, 'no-bwrap') });
      assert.equal(containment.sandbox.kind, 'off');
      const warnings = lines.filter((line) => line.includes('no sandbox'));
      assert.equal(warnings.length, 1, lines.join('\n'));
      assert.match(warnings[0] ?? '', /install bubblewrap/);
      assert.ok(containment.access.protectedFiles.some((file) => file.endsWith('config.toml')));
      assert.ok(containment.access.protectedFiles.some((file) => file.endsWith(path.join('data', 'sandpiper.db'))));
      assert.ok(containment.access.protectedTrees.some((tree) => tree.endsWith('data')));
      assert.ok(containment.access.readRoots.some((root) => root.endsWith('docs')), 'read_roots resolve against the config file');
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
