import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { editFileHandler, findOccurrences, pickNearest } from './edit_file.js';
import { readFileHandler } from './read_file.js';

describe('edit_file', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  const file = (name: string): string => path.join(workspace.directory, name);
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });

  it('refuses to edit a file that was not read', async () => {
    await writeFile(file('unread.txt'), 'a\n');
    const prepared = await editFileHandler.prepare(
      { path: 'unread.txt', old_string: 'a', new_string: 'b' },
      createToolContext(workspace.directory),
    );
    assert.equal(prepared.error, 'Error: must read_file unread.txt before editing it');
    assert.ok(prepared.header.startsWith('✗'));
    const result = await editFileHandler.execute(
      { path: 'unread.txt', old_string: 'a', new_string: 'b' },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, true);
    assert.equal(await readFile(file('unread.txt'), 'utf8'), 'a\n');
  });

  it('replaces a unique match after a read, with a diff-like preview', async () => {
    await writeFile(file('one.txt'), 'const a = 1;\nconst b = 2;\n');
    const context = createToolContext(workspace.directory);
    await readFileHandler.execute({ path: 'one.txt' }, context);
    const prepared = await editFileHandler.prepare(
      { path: 'one.txt', old_string: 'const b = 2;', new_string: 'const b = 3;' },
      context,
    );
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'edit_file');
    assert.equal(prepared.preview, '- const b = 2;\n+ const b = 3;');
    const result = await editFileHandler.execute(
      { path: 'one.txt', old_string: 'const b = 2;', new_string: 'const b = 3;' },
      context,
    );
    assert.deepEqual(result, { output: 'Edited one.txt: replaced 1 occurrence at line 2', isError: false });
    assert.equal(await readFile(file('one.txt'), 'utf8'), 'const a = 1;\nconst b = 3;\n');
  });

  it('explains zero and multiple matches, and picks with near_line or replace_all', async () => {
    await writeFile(file('many.txt'), 'x = 1\ny\nx = 1\ny\nx = 1\n');
    const context = createToolContext(workspace.directory);
    await readFileHandler.execute({ path: 'many.txt' }, context);
    assert.equal(
      (await editFileHandler.prepare({ path: 'many.txt', old_string: 'zzz', new_string: '' }, context)).error,
      'Error: old_string not found in many.txt',
    );
    assert.match(
      String(
        (await editFileHandler.prepare({ path: 'many.txt', old_string: 'x = 1', new_string: 'x = 2' }, context)).error,
      ),
      /^Error: old_string found 3 times at lines 1, 3, 5 — use near_line/,
    );
    const near = await editFileHandler.execute(
      { path: 'many.txt', old_string: 'x = 1', new_string: 'x = 2', near_line: 4 },
      context,
    );
    assert.equal(near.output, 'Edited many.txt: replaced 1 occurrence at line 3');
    assert.equal(await readFile(file('many.txt'), 'utf8'), 'x = 1\ny\nx = 2\ny\nx = 1\n');
    const all = await editFileHandler.execute(
      { path: 'many.txt', old_string: 'x = 1', new_string: 'x = 0', replace_all: true },
      context,
    );
    assert.equal(all.output, 'Edited many.txt: replaced 2 occurrences');
    assert.equal(await readFile(file('many.txt'), 'utf8'), 'x = 0\ny\nx = 2\ny\nx = 0\n');
  });

  it('notices a file that changed between approval and execution', async () => {
    await writeFile(file('race.txt'), 'value\n');
    const context = createToolContext(workspace.directory);
    await readFileHandler.execute({ path: 'race.txt' }, context);
    await writeFile(file('race.txt'), 'other\n');
    const result = await editFileHandler.execute({ path: 'race.txt', old_string: 'value', new_string: 'v' }, context);
    assert.deepEqual(result, { output: 'Error: old_string no longer found in race.txt (file changed)', isError: true });
  });

  it('finds overlapping occurrences and the nearest one', () => {
    assert.deepEqual(
      findOccurrences('aaa', 'aa').map((o) => o.line),
      [1, 1],
    );
    assert.deepEqual(findOccurrences('', 'a'), []);
    assert.deepEqual(
      findOccurrences('a\nb\na\nb\na', 'a').map((o) => o.line),
      [1, 3, 5],
    );
    assert.deepEqual(pickNearest([{ line: 1 }, { line: 5 }], 3), { line: 1 });
  });
});
