import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { readFileHandler } from './read_file.js';
import { writeFileHandler } from './write_file.js';

describe('write_file', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });

  it('creates parent directories, writes the content and records the file as read', async () => {
    const context = createToolContext(workspace.directory);
    const prepared = await writeFileHandler.prepare({ path: 'a/b/new.txt', content: 'hello' }, context);
    assert.equal(prepared.approvalLabel, 'write_file');
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.header, '⚙ write_file: a/b/new.txt (5 chars)');
    const result = await writeFileHandler.execute({ path: 'a/b/new.txt', content: 'hello' }, context);
    assert.deepEqual(result, { output: 'Wrote 5 chars to a/b/new.txt', isError: false });
    const absolute = path.join(workspace.directory, 'a/b/new.txt');
    assert.equal(await readFile(absolute, 'utf8'), 'hello');
    assert.ok(context.readFiles.has(await realpath(absolute)));
  });

  it('labels a blind overwrite overwrite_file, and write_file once the file was read', async () => {
    await writeFile(path.join(workspace.directory, 'existing.txt'), 'old');
    const context = createToolContext(workspace.directory);
    const blind = await writeFileHandler.prepare({ path: 'existing.txt', content: 'new' }, context);
    assert.equal(blind.approvalLabel, 'overwrite_file');
    assert.match(blind.preview, /already exists and has not been read/);
    await readFileHandler.execute({ path: 'existing.txt' }, context);
    assert.equal(
      (await writeFileHandler.prepare({ path: 'existing.txt', content: 'new' }, context)).approvalLabel,
      'write_file',
    );
  });

  it('previews long content with its total size', async () => {
    const prepared = await writeFileHandler.prepare(
      { path: 'long.txt', content: 'x'.repeat(800) },
      createToolContext(workspace.directory),
    );
    assert.match(prepared.preview, /\.\.\. \(800 chars total\)$/);
  });

  it('reports a write into a directory as an error result', async () => {
    const result = await writeFileHandler.execute({ path: 'a', content: 'x' }, createToolContext(workspace.directory));
    assert.deepEqual(result, { output: 'Error writing a: it is a directory', isError: true });
  });
});
