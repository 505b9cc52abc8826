/** Escape attempts against the file tools (read_file, write_file, edit_file, search): with and without a sandbox the confinement holds. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  existsSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { createLayout, leaked, SECRETS, text, type Layout } from './containment.fixture.js';

for (const mode of ['auto', 'off'] as const) {
  describe(`file tool confinement (tools.sandbox = "${mode}")`, () => {
    let l: Layout;
    before(async () => {
      l = await createLayout(mode);
    });
    after(() => l.remove());

    const refused = async (name: string, args: Record<string, unknown>, pattern: RegExp): Promise<void> => {
      const result = await l.call(name, args);
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} must be refused, got: ${text(result)}`);
      assert.match(text(result), pattern);
      assert.deepEqual(leaked(text(result)), []);
    };

    it('refuses the config file by relative path, absolute path and symlink', async () => {
      await refused('read_file', { path: '../../../config.toml' }, /protected gateway path/);
      await refused('read_file', { path: l.configFile }, /protected gateway path/);
      symlinkSync(l.configFile, path.join(l.workspace, 'innocent.txt'));
      await refused('read_file', { path: 'innocent.txt' }, /protected gateway path/);
      await refused('read_file', { path: `./sub/../../../../config.toml` }, /protected gateway path/);
    });

    it('refuses the database, data_dir and another workspace', async () => {
      await refused('read_file', { path: '../../sandpiper.db' }, /protected gateway path/);
      await refused('read_file', { path: l.databaseFile }, /protected gateway path/);
      await refused('read_file', { path: '../ws2/notes.txt' }, /protected gateway path/);
      await refused('search', { query: 'SECRET', path: '../ws2' }, /protected gateway path/);
      await refused('search', { query: 'SECRET', path: '..' }, /protected gateway path/);
    });

    it('refuses paths outside every root, /proc and devices', async () => {
      await refused('read_file', { path: path.join(l.outside, 'secret.txt') }, /outside the workspace/);
      await refused('read_file', { path: `/proc/${process.pid}/environ` }, /outside the workspace/);
      await refused('read_file', { path: '/proc/self/environ' }, /outside the workspace/);
      await refused('read_file', { path: '~/.ssh/id_rsa' }, /outside the workspace|protected/);
      symlinkSync('/dev/zero', path.join(l.workspace, 'zero'));
      await refused('read_file', { path: 'zero' }, /outside the workspace/);
      await refused('search', { query: 'SECRET', path: l.outside }, /outside the workspace/);
    });

    it('refuses hard links and FIFOs inside the workspace', async () => {
      linkSync(path.join(l.outside, 'secret.txt'), path.join(l.workspace, 'linked.txt'));
      await refused('read_file', { path: 'linked.txt' }, /hard links/);
      await refused('write_file', { path: 'linked.txt', content: 'overwritten' }, /hard links/);
      assert.equal(
        readFileSync(path.join(l.outside, 'secret.txt'), 'utf8'),
        `${SECRETS.outside}\n`,
        'the linked file outside is untouched',
      );
      execFileSync('mkfifo', [path.join(l.workspace, 'pipe')]);
      await refused('read_file', { path: 'pipe' }, /not a regular file/);
    });

    it('refuses writes and edits that leave the workspace, creating nothing outside', async () => {
      await refused(
        'write_file',
        { path: '../../../config.toml', content: '[agent]\nauto_approve = true\n' },
        /protected gateway path/,
      );
      assert.match(readFileSync(l.configFile, 'utf8'), new RegExp(SECRETS.config));
      symlinkSync(l.outside, path.join(l.workspace, 'escape'));
      await refused('write_file', { path: 'escape/planted.txt', content: 'x' }, /outside the workspace/);
      assert.equal(existsSync(path.join(l.outside, 'planted.txt')), false);
      await refused('write_file', { path: path.join(l.readRoot, 'guide.md'), content: 'changed' }, /read-only root/);
      const ctx = l.context();
      ctx.readFiles.add(l.configFile);
      const edit = await l.call(
        'edit_file',
        { path: '../../../config.toml', old_string: 'token', new_string: 'x' },
        { readFiles: ctx.readFiles },
      );
      assert.equal(edit.isError, true);
      assert.match(readFileSync(l.configFile, 'utf8'), /token/);
    });

    it('reads the workspace and the read-only roots normally', async () => {
      assert.match(text(await l.call('read_file', { path: 'hello.txt' })), /hello from the workspace/);
      assert.match(text(await l.call('read_file', { path: path.join(l.readRoot, 'guide.md') })), /read-only guide/);
      const wrote = await l.call('write_file', { path: 'sub/new.txt', content: 'made here' });
      assert.equal(wrote.isError, false, text(wrote));
      assert.equal(readFileSync(path.join(l.workspace, 'sub/new.txt'), 'utf8'), 'made here');
      const found = await l.call('search', { query: 'made here' });
      assert.match(text(found), /new\.txt/);
    });

    it('search of the workspace never shows what its symlinks point at', async () => {
      symlinkSync(path.join(l.outside, 'secret.txt'), path.join(l.workspace, 'points-out.txt'));
      const result = await l.call('search', { query: 'SECRET' });
      assert.deepEqual(leaked(text(result)), [], text(result));
    });

    it('a symlink swapped in while reading never yields the secret', async () => {
      const target = path.join(l.workspace, 'race.txt');
      const spare = path.join(l.workspace, 'race-link');
      writeFileSync(target, 'harmless\n');
      let swapping = true;
      const swapper = (async () => {
        mkdirSync(path.join(l.workspace, 'race-dir'), { recursive: true });
        for (let round = 0; swapping; round++) {
          // Alternate a regular file and a symlink to the config file under the same name.
          try {
            unlinkSync(spare);
          } catch {
            // Not there yet.
          }
          if (round % 2 === 0) symlinkSync(l.configFile, spare);
          else writeFileSync(spare, 'harmless\n');
          renameSync(spare, target);
          // A varying number of turns of the event loop, so reads land on both states.
          for (let turn = 0; turn <= round % 5; turn++) await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const outputs: string[] = [];
      for (let attempt = 0; attempt < 200; attempt++)
        outputs.push(text(await l.call('read_file', { path: 'race.txt' })));
      swapping = false;
      await swapper;
      assert.deepEqual(outputs.flatMap(leaked), [], 'no read returned the config secret');
      // Whether a read lands between two swaps is up to the scheduler (on a busy machine none may); once the name is
      // a regular file again, reading it must work, so the refusals above were the race and not a broken tool.
      rmSync(spare, { force: true });
      writeFileSync(spare, 'harmless\n');
      renameSync(spare, target);
      assert.match(
        text(await l.call('read_file', { path: 'race.txt' })),
        /harmless/,
        `reads during the race: ${[...new Set(outputs)].join(' | ')}`,
      );
    });
  });
}
