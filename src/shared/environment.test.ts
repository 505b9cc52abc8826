/** Secret scrubbing of the environment handed to stdio MCP servers. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { scrubbedEnvironment } from './environment.js';

describe('scrubbedEnvironment', () => {
  it('drops secrets by suffix and by name, keeps the rest, and lets the server env win', () => {
    const env = scrubbedEnvironment(
      {
        PATH: '/bin',
        HOME: '/home/u',
        LC_ALL: 'C',
        GITHUB_TOKEN: 'x',
        my_password: 'x',
        OPENAI_API_KEY: 'x',
        DATABASE_URL: 'x',
        SANDPIPER_JWT_SECRET: 'x',
        AWS_SECRET_ACCESS_KEY: 'x',
        NODE_ENV: 'test',
        UNSET: undefined,
      },
      { GITHUB_TOKEN: 'configured', EXTRA: '1' },
    );
    assert.deepEqual(env, {
      PATH: '/bin',
      HOME: '/home/u',
      LC_ALL: 'C',
      NODE_ENV: 'test',
      GITHUB_TOKEN: 'configured',
      EXTRA: '1',
    });
  });
});
