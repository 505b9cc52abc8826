/** Tests for secret redaction in log lines: what an operator reads in the logs never carries a token or password. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { redactSecrets } from './log-redaction.js';

function capture(): {
  logger: ReturnType<typeof createLogger>;
  lines: () => Array<Record<string, unknown>>;
  raw: () => string;
} {
  let text = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  const logger = createLogger({ level: 'debug', format: 'json', destination });
  return {
    logger,
    raw: () => text,
    lines: () =>
      text
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('log redaction', () => {
  it('redacts secret keys at the top level and two levels down, and keeps everything else', () => {
    const { logger, lines, raw } = capture();
    logger.info(
      {
        token: 'tok-1',
        user: 'alice',
        config: { api_key: 'key-2', model: 'gpt' },
        req: { headers: { authorization: 'Bearer tok-3', host: 'h' } },
      },
      'hello',
    );
    const [line] = lines();
    assert.equal(line?.token, '[redacted]');
    assert.equal(line?.user, 'alice');
    assert.deepEqual(line?.config, { api_key: '[redacted]', model: 'gpt' });
    assert.deepEqual(line?.req, { headers: { authorization: '[redacted]', host: 'h' } });
    assert.equal(line?.msg, 'hello');
    for (const secret of ['tok-1', 'key-2', 'tok-3']) assert.ok(!raw().includes(secret), `${secret} leaked`);
  });

  it('redacts secrets in child bindings and in error objects, keeping the error message and stack', () => {
    const { logger, lines, raw } = capture();
    const error = Object.assign(new Error('upstream said no'), { password: 'hunter2' });
    logger.child({ component: 'x', bot_token: 'bot-4' }).error({ err: error }, 'failed');
    const [line] = lines();
    assert.equal(line?.component, 'x');
    assert.equal(line?.bot_token, '[redacted]');
    const err = line?.err as Record<string, unknown>;
    assert.equal(err.message, 'upstream said no');
    assert.equal(err.password, '[redacted]');
    assert.match(String(err.stack), /upstream said no/);
    assert.ok(!raw().includes('hunter2') && !raw().includes('bot-4'));
  });

  it("never changes the caller's objects and returns the same object when there is nothing to redact", () => {
    const clean = { targets: 1, nested: { sent: 0 } };
    assert.equal(redactSecrets(clean), clean);
    const dirty = { nested: { secret: 's', keep: 1 }, list: [{ jwt_secret: 'j' }] };
    const redacted = redactSecrets(dirty);
    assert.deepEqual(redacted, { nested: { secret: '[redacted]', keep: 1 }, list: [{ jwt_secret: '[redacted]' }] });
    assert.deepEqual(dirty, { nested: { secret: 's', keep: 1 }, list: [{ jwt_secret: 'j' }] });
  });
});
