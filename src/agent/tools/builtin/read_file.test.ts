import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { imageMediaType, readFileHandler } from './read_file.js';

describe('read_file', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
    await writeFile(path.join(workspace.directory, 'notes.txt'), 'alpha\nbeta   \ngamma\ndelta\n');
    await writeFile(path.join(workspace.directory, 'blob.bin'), Buffer.from([1, 2, 0, 3]));
    await writeFile(path.join(workspace.directory, 'pic.png'), Buffer.from('89504e470d0a1a0a', 'hex'));
    await writeFile(path.join(workspace.directory, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"></svg>');
    await mkdir(path.join(workspace.directory, 'sub'));
  });
  after(async () => {
    await workspace.remove();
  });

  it('numbers lines relative to the workstream directory and records the real path', async () => {
    const context = createToolContext(workspace.directory);
    const result = await readFileHandler.execute({ path: 'notes.txt' }, context);
    assert.deepEqual(result, { output: '   1\talpha\n   2\tbeta\n   3\tgamma\n   4\tdelta', isError: false });
    assert.ok(context.readFiles.has(await realpath(path.join(workspace.directory, 'notes.txt'))));
  });

  it('honours offset and limit', async () => {
    const context = createToolContext(workspace.directory);
    const prepared = await readFileHandler.prepare({ path: 'notes.txt', offset: 2, limit: 2 }, context);
    assert.equal(prepared.header, '⚙ read_file: notes.txt (lines 2-3)');
    assert.equal(prepared.needsApproval, false);
    const result = await readFileHandler.execute({ path: 'notes.txt', offset: 2, limit: 2 }, context);
    assert.equal(result.output, '   2\tbeta\n   3\tgamma');
    assert.match(
      String((await readFileHandler.execute({ path: 'notes.txt', offset: 10 }, context)).output),
      /has 4 lines/,
    );
  });

  it('reports a missing file and forgets it in the read set', async () => {
    const context = createToolContext(workspace.directory);
    await readFileHandler.prepare({ path: 'missing.txt' }, context);
    assert.equal(context.readFiles.size, 1);
    const result = await readFileHandler.execute({ path: 'missing.txt' }, context);
    assert.deepEqual(result, { output: 'Error: missing.txt not found', isError: true });
    assert.equal(context.readFiles.size, 0);
  });

  it('rejects directories and binary files clearly', async () => {
    const context = createToolContext(workspace.directory);
    const directory = await readFileHandler.execute({ path: 'sub' }, context);
    assert.equal(directory.isError, true);
    assert.match(String(directory.output), /sub is a directory/);
    const binary = await readFileHandler.execute({ path: 'blob.bin' }, context);
    assert.equal(binary.isError, true);
    assert.match(String(binary.output), /binary file/);
  });

  it('returns images as image parts for vision models and a clear note otherwise', async () => {
    const withVision = await readFileHandler.execute(
      { path: 'pic.png' },
      createToolContext(workspace.directory, { supportsVision: true }),
    );
    assert.ok(Array.isArray(withVision.output));
    const [text, image] = withVision.output;
    assert.equal(text?.type, 'text');
    assert.match(text?.type === 'text' ? text.text : '', /pic\.png/);
    assert.deepEqual(image, {
      type: 'image',
      mediaType: 'image/png',
      data: Buffer.from('89504e470d0a1a0a', 'hex').toString('base64'),
    });
    const noVision = await readFileHandler.execute({ path: 'pic.png' }, createToolContext(workspace.directory));
    assert.match(String(noVision.output), /pic\.png .*does not support vision/);
    const svg = await readFileHandler.execute(
      { path: 'logo.svg' },
      createToolContext(workspace.directory, { supportsVision: true }),
    );
    assert.match(String(svg.output), /<svg/);
    assert.equal(imageMediaType('x.JPG'), 'image/jpeg');
    assert.equal(imageMediaType('x.md'), undefined);
  });

  it('refuses an image over 4 MB for vision', async () => {
    await writeFile(path.join(workspace.directory, 'big.png'), Buffer.alloc(4 * 1024 * 1024 + 8));
    const result = await readFileHandler.execute(
      { path: 'big.png' },
      createToolContext(workspace.directory, { supportsVision: true }),
    );
    assert.equal(result.isError, true);
    assert.match(String(result.output), /exceeds 4 MB/);
  });
});
