import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { createSearchHandler, searchHandler, type SearchEngine } from './search.js';

describe('search', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
    await mkdir(path.join(workspace.directory, 'src'));
    await mkdir(path.join(workspace.directory, 'node_modules'));
    await writeFile(path.join(workspace.directory, 'src', 'a.ts'), 'export function loadConfig() {}\nconst x = 1;\n');
    await writeFile(path.join(workspace.directory, 'src', 'b.ts'), '// TODO: loadConfig later\n');
    await writeFile(path.join(workspace.directory, 'node_modules', 'dep.js'), 'loadConfig();\n');
    await writeFile(
      path.join(workspace.directory, 'data.bin'),
      Buffer.from([0, 1, 2, 108, 111, 97, 100, 67, 111, 110, 102, 105, 103]),
    );
  });
  after(async () => {
    await workspace.remove();
  });

  it('is auto-approved and shows the pattern in the header', async () => {
    const prepared = await searchHandler.prepare({ query: 'load.*' }, createToolContext(workspace.directory));
    assert.equal(prepared.needsApproval, false);
    assert.equal(prepared.header, '⚙ search: /load.*/ in .');
  });

  for (const engine of ['grep', 'js'] as SearchEngine[]) {
    it(`finds matches under the workstream directory with paths and line numbers (${engine})`, async () => {
      const handler = createSearchHandler({ engine });
      const context = createToolContext(workspace.directory);
      const result = await handler.execute({ query: 'function +loadConfig|TODO' }, context);
      assert.equal(result.isError, false);
      const lines = String(result.output).split('\n').sort();
      assert.deepEqual(lines, [
        `${path.join('src', 'a.ts')}:1:export function loadConfig() {}`,
        `${path.join('src', 'b.ts')}:1:// TODO: loadConfig later`,
      ]);
      assert.deepEqual(await handler.execute({ query: 'nothing-like-this' }, context), {
        output: '(no matches)',
        isError: false,
      });
      assert.deepEqual(await handler.execute({ query: 'x', path: 'nope' }, context), {
        output: 'Error: nope not found',
        isError: true,
      });
    });
  }

  it('reports an invalid pattern as an error', async () => {
    const result = await createSearchHandler({ engine: 'grep' }).execute(
      { query: 'a(' },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, true);
  });
});
