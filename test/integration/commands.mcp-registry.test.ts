/** `sandpiper mcp search | install` (runCli in-process) against a fake MCP registry and a real SQLite database. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKnex, createStores } from '../../src/storage/index.js';
import { startFakeMcpRegistry, type FakeRegistry } from '../fakes/fake-mcp-registry.js';
import { runCliInProcess } from '../helpers/run-cli-in-process.js';

const SERVERS = [
  {
    name: 'io.github.acme/weather',
    description: 'Weather forecasts',
    version: '1.2.0',
    packages: [
      {
        registryType: 'npm',
        identifier: '@acme/weather-mcp',
        version: '1.2.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'WEATHER_KEY', isRequired: true }],
      },
    ],
  },
  {
    name: 'io.github.acme/wiki',
    description: 'Search the wiki',
    version: '0.3.1',
    packages: [{ registryType: 'pypi', identifier: 'acme-wiki-mcp', version: '0.3.1' }],
  },
  {
    name: 'com.example/hosted',
    description: 'A hosted server',
    version: '2.0.0',
    remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }],
  },
];

describe('sandpiper mcp search | install', () => {
  let registry: FakeRegistry;
  let dir: string;
  let config: string;

  before(async () => {
    registry = await startFakeMcpRegistry(SERVERS);
    dir = mkdtempSync(path.join(tmpdir(), 'sp-registry-'));
    config = path.join(dir, 'config.toml');
    writeFileSync(
      config,
      `[database]\nurl = "sqlite:${path.join(dir, 'sp.db')}"\n[mcp]\nregistry_url = "${registry.url}"\n`,
    );
  });
  after(async () => {
    await registry.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (...argv: string[]): ReturnType<typeof runCliInProcess> =>
    runCliInProcess([...argv, '--config', config, '--create-db']);

  async function rows(): Promise<
    Array<{ name: string; command: string; args: string[]; url: string; env: Record<string, string> }>
  > {
    const knex = createKnex(`sqlite:${path.join(dir, 'sp.db')}`);
    try {
      return await createStores(knex).mcpServers.list();
    } finally {
      await knex.destroy();
    }
  }

  it('searches the registry and prints what matches', async () => {
    const found = await cli('mcp', 'search', 'acme', '--json');
    assert.equal(found.code, 0, found.stderr);
    assert.deepEqual(
      (JSON.parse(found.stdout) as { servers: Array<{ name: string }> }).servers.map((s) => s.name),
      ['io.github.acme/weather', 'io.github.acme/wiki'],
    );
    assert.match(registry.queries.at(-1) ?? '', /search=acme/);
    const none = await cli('mcp', 'search', 'nothing-like-this');
    assert.match(none.stdout, /no servers match/);
  });

  it('installs npm, PyPI and remote servers as database rows; a required variable must be given', async () => {
    const missing = await cli('mcp', 'install', 'io.github.acme/weather');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /needs --env WEATHER_KEY=/);
    const weather = await cli('mcp', 'install', 'io.github.acme/weather', '--env', 'WEATHER_KEY=k1');
    assert.equal(weather.code, 0, weather.stderr);
    assert.match(
      weather.stdout,
      /installed io\.github\.acme\/weather 1\.2\.0 as MCP server weather: npx -y @acme\/weather-mcp@1\.2\.0 \(in the tool sandbox\)/,
    );
    assert.equal((await cli('mcp', 'install', 'io.github.acme/wiki', '--as', 'wiki')).code, 0);
    assert.equal((await cli('mcp', 'install', 'com.example/hosted')).code, 0);
    const listed = await rows();
    assert.deepEqual(listed.map((row) => row.name).sort(), ['hosted', 'weather', 'wiki']);
    const installed = Object.fromEntries(listed.map((row) => [row.name, row]));
    assert.deepEqual(
      [installed['weather']?.command, installed['weather']?.args, installed['weather']?.env],
      ['npx', ['-y', '@acme/weather-mcp@1.2.0'], { WEATHER_KEY: 'k1' }],
    );
    assert.deepEqual([installed['wiki']?.command, installed['wiki']?.args], ['uvx', ['acme-wiki-mcp==0.3.1']]);
    assert.equal(installed['hosted']?.url, 'https://mcp.example.com/mcp');
    const again = await cli('mcp', 'install', 'io.github.acme/wiki');
    assert.equal(again.code, 1, 'the name is taken');
    const unknown = await cli('mcp', 'install', 'io.github.nobody/none');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no server named/);
  });
});
