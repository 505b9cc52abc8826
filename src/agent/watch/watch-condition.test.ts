import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkStopCondition, validateStopOn, type PollFacts } from './watch-condition.js';
import { formatInterval, parseDuration } from './watch-durations.js';

const poll = (output: string, exitCode = 0, prevOutput: string | null = null): PollFacts => ({
  output,
  exitCode,
  prevOutput,
});
const fires = (condition: string, facts: PollFacts): boolean => {
  const outcome = checkStopCondition(condition, facts);
  assert.equal(outcome.isError, false, `${condition}: ${outcome.reason}`);
  return outcome.fired;
};

describe('parseDuration', () => {
  it('accepts the reference examples', () => {
    const cases: Array<[string, number]> = [
      ['30s', 30],
      ['5m', 300],
      ['1h', 3600],
      ['2h30m', 9000],
      ['90', 90],
      ['10.5', 10.5],
      ['  5m  ', 300],
      ['1H30M', 5400],
    ];
    for (const [text, seconds] of cases) assert.deepEqual(parseDuration(text), { ok: true, value: seconds }, text);
  });

  it('refuses empty, garbage, negative and zero durations', () => {
    for (const text of ['', 'soon', '-5', '0', '0s', '5x']) assert.equal(parseDuration(text).ok, false, text);
  });
});

describe('formatInterval', () => {
  it('prints seconds, minutes and hours like the reference', () => {
    const cases: Array<[number, string]> = [
      [30, '30s'],
      [60, '1m'],
      [300, '5m'],
      [3600, '1h'],
      [5400, '1h30m'],
      [7200, '2h'],
      [86400, '24h'],
    ];
    for (const [seconds, text] of cases) assert.equal(formatInterval(seconds), text);
  });
});

describe('validateStopOn', () => {
  it('accepts the documented conditions', () => {
    for (const condition of [
      'data["state"] == "MERGED"',
      '"error" in output',
      'exit_code != 0',
      'changed and "ready" in output.lower()',
      'data.get("mergedAt") is not None',
    ]) {
      assert.equal(validateStopOn(condition), undefined, condition);
    }
  });

  it('explains syntax errors, unknown names and unsupported syntax', () => {
    assert.match(validateStopOn('exit_code ==') ?? '', /syntax/);
    assert.match(validateStopOn('(output') ?? '', /syntax/);
    assert.match(validateStopOn('status == 1') ?? '', /unknown name 'status'.*output, data/);
    assert.match(validateStopOn('output.length') ?? '', /attribute access/);
    assert.match(validateStopOn('output.constructor("x")') ?? '', /unknown method 'constructor'/);
    assert.match(validateStopOn('a if b else c') ?? '', /single expression|unknown name/);
    assert.match(validateStopOn('exit_code == 0 ? 1 : 2') ?? '', /not supported/);
    assert.match(validateStopOn('output && changed') ?? '', /syntax|single expression/);
  });
});

describe('checkStopCondition', () => {
  it('uses change detection without a condition: the first poll is a baseline', () => {
    assert.equal(checkStopCondition(null, poll('hello')).fired, false);
    const changed = checkStopCondition(null, poll('world', 0, 'hello'));
    assert.equal(changed.fired, true);
    assert.match(changed.reason, /changed/);
    assert.equal(checkStopCondition(null, poll('same', 0, 'same')).fired, false);
  });

  it('evaluates the reference conditions over output, data, exit_code and changed', () => {
    assert.equal(fires('exit_code != 0', poll('', 1)), true);
    assert.equal(fires('data["state"] == "MERGED"', poll('{"state": "MERGED"}')), true);
    assert.equal(fires('data["state"] == "MERGED"', poll('{"state": "OPEN"}')), false);
    assert.equal(fires('data is None', poll('not json')), true);
    assert.equal(fires('changed', poll('b', 0, 'a')), true);
    assert.equal(fires('len(output) > 0', poll('x')), true);
    assert.equal(fires('sorted([3,1,2]) == [1,2,3]', poll('')), true);
    assert.equal(fires('data.get("mergedAt") is not None', poll('{"mergedAt": "2026-01-01"}')), true);
    assert.equal(fires('data.get("mergedAt") is not None', poll('{"mergedAt": null}')), false);
    assert.equal(fires('changed and "ready" in output.lower()', poll('READY', 0, 'wait')), true);
    assert.equal(
      checkStopCondition('data["state"] == "X"', poll('{}')).reason,
      "condition error: key 'state' not found",
    );
  });

  it('follows Python semantics for not, in, and/or, membership and builtins', () => {
    assert.equal(fires('not "error" in output', poll('all good')), true);
    assert.equal(fires('"error" not in output', poll('an error')), false);
    assert.equal(fires('not changed', poll('a', 0, 'a')), true);
    assert.equal(fires('any([0, "", 1])', poll('')), true);
    assert.equal(fires('all(["a", ""])', poll('')), false);
    assert.equal(fires('isinstance(data, dict) and "k" in data', poll('{"k": 1}')), true);
    assert.equal(fires('isinstance(data, list) and len(data) == 2', poll('[1, 2]')), true);
    assert.equal(fires('int(output.strip()) >= 3', poll(' 3\n')), true);
    assert.equal(fires('max(data) == 9 and min(data) == 1 and abs(-2) == 2', poll('[1, 9, 4]')), true);
    assert.equal(fires('output.split()[-1] == "done"', poll('step 3 done')), true);
    assert.equal(fires('data["items"][0]["ok"] == True', poll('{"items": [{"ok": true}]}')), true);
    assert.equal(fires('str(exit_code) + "!" == "0!"', poll('')), true);
    assert.equal(fires('prev_output is None', poll('first')), true);
  });

  it('reports errors of the condition as terminal, never runs code: 1/0, __import__, open, exec, eval, compile', () => {
    for (const condition of [
      '1/0',
      "__import__('os')",
      "open('/etc/passwd')",
      "exec('x')",
      "eval('1')",
      "compile('1', 'f', 'eval')",
    ]) {
      const outcome = checkStopCondition(condition, poll('x'));
      assert.equal(outcome.fired, false, condition);
      assert.equal(outcome.isError, true, condition);
      assert.match(outcome.reason, /error/, condition);
    }
  });
});

describe('hostile stop_on corpus', () => {
  const refusedOrSafe = (condition: string, facts: PollFacts = poll('{"a": 1}')): string => {
    const started = performance.now();
    const outcome = checkStopCondition(condition, facts);
    assert.ok(performance.now() - started < 2000, `${condition.slice(0, 60)} returned within its limit`);
    assert.equal(outcome.fired, false, `${condition.slice(0, 60)} must not fire`);
    return outcome.reason;
  };

  it('never reaches prototypes, constructors or globals', () => {
    assert.match(refusedOrSafe('data["__proto__"]'), /not found/);
    assert.match(refusedOrSafe('data["constructor"]'), /not found/);
    assert.match(refusedOrSafe('data.get("__proto__") is not None'), /^$/);
    assert.match(refusedOrSafe('output.constructor'), /attribute access/);
    assert.match(refusedOrSafe('output["constructor"]'), /indices must be integers/);
    assert.match(refusedOrSafe('len.constructor("return process")()'), /attribute access|unknown method|only named/);
    assert.match(refusedOrSafe('str.__class__'), /attribute access/);
    assert.match(refusedOrSafe('globalThis'), /unknown name/);
    assert.match(refusedOrSafe('process.exit(1)'), /unknown name|unknown method/);
    assert.match(refusedOrSafe('this'), /not supported/);
    assert.match(refusedOrSafe('require("fs")'), /not a function/);
    assert.match(refusedOrSafe('data.__proto__.polluted'), /attribute access|unknown method/);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  it('refuses huge exponents and huge repetitions instead of allocating', () => {
    assert.match(refusedOrSafe('10 ** 10 ** 10 > 0'), /out of range/);
    assert.match(refusedOrSafe('9 ** 999999 == 1'), /out of range/);
    assert.match(refusedOrSafe('len("a" * 10 ** 9) > 0'), /too large/);
    assert.match(refusedOrSafe('len([1] * 10 ** 8) > 0'), /too large/);
    assert.match(
      refusedOrSafe('len(output.replace("", "xxxxxxxxxxxxxxxxxxxxxxxxxx")) > 0', poll('a'.repeat(60_000))),
      /too large/,
    );
  });

  it('stops runaway work with the step and time limits', () => {
    const heavy = `len(${Array.from({ length: 30 }, () => 'sorted(output * 30000)').join(' + ')}) > 0`;
    assert.match(refusedOrSafe(heavy, poll('abcdefghij')), /step limit|time limit|too large/);
  });

  it('refuses deep nesting and very long conditions with a clear message', () => {
    // Parentheses add no tree level: 400 of them are simply evaluated; 20,000 are refused by length.
    assert.equal(refusedOrSafe(`${'('.repeat(400)}1${')'.repeat(400)} == 2`), '');
    assert.match(refusedOrSafe(`${'('.repeat(20_000)}1${')'.repeat(20_000)}`), /too long/);
    assert.match(refusedOrSafe(`${'not '.repeat(200)}changed`), /nested too deeply|too long/);
    assert.match(refusedOrSafe(`${'['.repeat(45)}${']'.repeat(45)} == 1`), /nested too deeply/);
    assert.match(refusedOrSafe(`"${'x'.repeat(5000)}" in output`), /too long/);
  });

  it('evaluates long outputs and deeply nested JSON data safely', () => {
    const long = 'y'.repeat(64 * 1024);
    assert.equal(checkStopCondition('"z" in output', poll(long)).fired, false);
    assert.equal(checkStopCondition('len(output) == 65536', poll(long)).fired, true);
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const outcome = checkStopCondition('data == data', poll(deep));
    assert.ok(outcome.fired || outcome.isError);
  });
});
