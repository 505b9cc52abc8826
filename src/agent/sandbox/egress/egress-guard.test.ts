import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { checkDestination } from './egress-guard.js';

const reason = async (host: string, port: number, options: Parameters<typeof checkDestination>[1]): Promise<string> => {
  const outcome = await checkDestination({ host, port }, options);
  return outcome.ok ? `ok ${outcome.addresses.map((entry) => entry.address).join(',')}` : outcome.reason;
};

describe('egress address rules', () => {
  const gateway = { host: '0.0.0.0', port: 8091 };

  it('passes a public address and connects to exactly that address', async () => {
    assert.equal(await reason('93.184.216.34', 443, { internal: [], gateway }), 'ok 93.184.216.34');
    assert.equal(
      await reason('93.184.216.34', 8091, { internal: [], gateway }),
      'ok 93.184.216.34',
      'the gateway port on another host is not the gateway',
    );
  });

  it('refuses loopback, private, link-local, metadata and mapped forms, naming the address', async () => {
    for (const host of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '192.168.0.10',
      '169.254.169.254',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '100.64.0.1',
      '0.0.0.0',
    ]) {
      assert.match(await reason(host, 80, { internal: [], gateway }), /^Blocked: .*private\/internal address/, host);
    }
  });

  it('trusts an exact internal host:port only, and never the gateway itself', async () => {
    assert.equal(await reason('10.0.0.7', 8080, { internal: ['10.0.0.7:8080'], gateway }), 'ok 10.0.0.7');
    assert.match(await reason('10.0.0.7', 8081, { internal: ['10.0.0.7:8080'], gateway }), /^Blocked/);
    assert.match(await reason('127.0.0.1', 8091, { internal: ['127.0.0.1:8091'], gateway }), /is the gateway itself/);
  });

  it("refuses this host's own public addresses", async () => {
    const own = Object.values(os.networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && !entry.internal && entry.family === 'IPv4');
    if (own === undefined) return;
    assert.match(await reason(own.address, 80, { internal: [], gateway }), /^Blocked/);
  });
});
