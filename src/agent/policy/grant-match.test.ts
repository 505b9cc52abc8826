import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grantCovers } from './grant-match.js';

const call = (label: string, args: Record<string, unknown>, primaryKey?: string) => ({
  label,
  name: label,
  args,
  arguments: JSON.stringify(args),
  primaryKey,
});

describe('grant matching', () => {
  it('matches the label glob and, when given, the argument glob on the primary argument', () => {
    assert.equal(
      grantCovers({ label: 'bash', argsGlob: null }, call('bash', { command: 'anything' }, 'command')),
      true,
    );
    assert.equal(grantCovers({ label: 'mcp__gh__*', argsGlob: null }, call('mcp__gh__issue', {})), true);
    assert.equal(grantCovers({ label: 'bash', argsGlob: null }, call('read_file', { path: 'x' }, 'path')), false);
    assert.equal(
      grantCovers({ label: 'bash', argsGlob: 'git *' }, call('bash', { command: 'git status' }, 'command')),
      true,
    );
    assert.equal(
      grantCovers({ label: 'bash', argsGlob: 'git *' }, call('bash', { command: 'rm -rf /' }, 'command')),
      false,
    );
    assert.equal(
      grantCovers(
        { label: 'web_fetch', argsGlob: '*"url":"https://docs.*' },
        call('web_fetch', { url: 'https://docs.x' }),
      ),
      true,
    );
  });

  it('never lets an argument glob cover chained or redirected commands it does not spell out', () => {
    for (const command of [
      'git status; rm -rf ~',
      'git log && curl x',
      'git log | sh',
      'git `id`',
      'git $(id)',
      'git log\nrm x',
      'git log > /etc/x',
    ]) {
      assert.equal(
        grantCovers({ label: 'bash', argsGlob: 'git *' }, call('bash', { command }, 'command')),
        false,
        command,
      );
    }
    assert.equal(
      grantCovers({ label: 'bash', argsGlob: 'git log | *' }, call('bash', { command: 'git log | head' }, 'command')),
      true,
    );
  });
});
