import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { cleanManText, manHandler } from './man.js';

describe('man', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });

  it('validates the page name and keeps only a well-formed section', async () => {
    const context = createToolContext(workspace.directory);
    assert.equal((await manHandler.prepare({ page: '  ' }, context)).error, 'Error: no page name provided');
    assert.equal(
      (await manHandler.prepare({ page: 'ls; rm -rf x' }, context)).error,
      "Error: invalid page name 'ls; rm -rf x'",
    );
    const prepared = await manHandler.prepare({ page: 'printf', section: '3' }, context);
    assert.equal(prepared.header, '⚙ man: printf(3)');
    assert.equal(prepared.needsApproval, false);
    assert.equal((await manHandler.prepare({ page: 'ls', section: 'x; y' }, context)).header, '⚙ man: ls');
  });

  it('returns a page as plain text, or a clear error for an unknown page', async (t) => {
    const context = createToolContext(workspace.directory);
    const page = await manHandler.execute({ page: 'bash' }, context);
    if (page.isError) {
      t.skip('no manual pages installed on this machine');
      return;
    }
    assert.match(String(page.output), /NAME/);
    assert.doesNotMatch(String(page.output), /\x08/);
    const missing = await manHandler.execute({ page: 'no-such-page-xyz' }, context);
    assert.deepEqual(missing, { output: "No man or info page found for 'no-such-page-xyz'", isError: true });
  });

  it('strips overstrikes and colour codes', () => {
    assert.equal(cleanManText('N\x08NA\x08AM\x08ME\x08E _\x08u \x1b[1mbold\x1b[0m'), 'NAME u bold');
  });
});
