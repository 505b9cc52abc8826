import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTempWorkspace, createToolContext } from '../../../../test/helpers/tool-context.js';
import { createMathHandler, mathHandler } from './math.js';

describe('math', () => {
  let workspace: { directory: string; remove(): Promise<void> };
  before(async () => {
    workspace = await createTempWorkspace();
  });
  after(async () => {
    await workspace.remove();
  });
  const run = (code: string, timeoutMs = 60_000) =>
    mathHandler.execute({ code }, createToolContext(workspace.directory, { timeoutMs }));

  it('needs approval and prints results, auto-printing a final expression', async () => {
    const prepared = await mathHandler.prepare({ code: '2**100' }, createToolContext(workspace.directory));
    assert.equal(prepared.needsApproval, true);
    assert.equal(prepared.approvalLabel, 'math');
    assert.deepEqual(await run('2**100'), { output: '1267650600228229401496703205376', isError: false });
    assert.deepEqual(await run('from fractions import Fraction\nprint(Fraction(1, 3) + Fraction(1, 6))'), {
      output: '1/2',
      isError: false,
    });
    assert.deepEqual(await run('result = sum(range(10))'), { output: '45', isError: false });
    assert.deepEqual(await run('x = 1'), { output: 'No output. Add print() to see results.', isError: false });
  });

  it('solves with sympy names that are preloaded', async () => {
    const result = await run("x = symbols('x')\nprint(solve(x**2 - 4, x))");
    assert.deepEqual(result, { output: '[-2, 2]', isError: false });
  });

  it('refuses imports outside the allowlist and dangerous calls', async () => {
    const result = await run('import os\nprint(os.getcwd())');
    assert.equal(result.isError, true);
    assert.match(String(result.output), /^Error:\nValidation errors:\n- line 1: import of 'os' is not allowed/);
    const several = await run("from subprocess import run\nopen('x')\nprint(int.__dict__)\nprint(int.__name__)");
    assert.equal(
      String(several.output)
        .split('\n')
        .filter((line) => line.startsWith('- ')).length,
      3,
    );
  });

  it('reports syntax errors and exceptions', async () => {
    assert.match(String((await run('print(1')).output), /^Error:\nSyntax error on line 1/);
    const failure = await run('print("before")\n1/0');
    assert.equal(failure.isError, true);
    assert.match(String(failure.output), /ZeroDivisionError: division by zero/);
    assert.match(String(failure.output), /before/);
  });

  it('stops code that runs past the time limit', async () => {
    const result = await run('while True:\n    pass', 1500);
    assert.deepEqual(result, { output: 'Error:\nExecution timed out after 1.5s', isError: true });
  });

  it('stops code that exceeds the memory limit', async () => {
    const handler = createMathHandler({ memoryLimitBytes: 512 * 1024 * 1024 });
    const result = await handler.execute(
      { code: "x = 'a' * (2 * 1024 ** 3)\nprint(len(x))" },
      createToolContext(workspace.directory),
    );
    assert.equal(result.isError, true);
    assert.match(String(result.output), /MemoryError/);
  });

  it('says clearly when python3 is missing', async () => {
    const handler = createMathHandler({ pythonCommand: 'python3-not-installed-here' });
    const result = await handler.execute({ code: '1+1' }, createToolContext(workspace.directory));
    assert.deepEqual(result, {
      output: 'Error: python3-not-installed-here is not installed on this host, so the math tool is unavailable',
      isError: true,
    });
  });
});
