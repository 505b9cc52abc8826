import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../shared/errors.js';
import { configSchema, mcpServerConfigSchema, modelConfigSchema } from './config-schema.js';
import { loadConfig } from './load-config.js';

const root = path.resolve(import.meta.dirname, '../..');

function tempConfig(text: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sp-config-'));
  const file = path.join(dir, 'config.toml');
  writeFileSync(file, text);
  return { dir, file };
}

function issuesOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${String(error)}`);
    return [...error.issues];
  }
  assert.fail('expected a configuration error');
}

/** Leaf keys of a zod object schema, unwrapping defaults/prefaults/optionals. */
function shapeKeys(schema: unknown): string[] {
  let node = schema as { _zod: { def: { shape?: Record<string, unknown>; innerType?: unknown } } };
  while (!node._zod.def.shape && node._zod.def.innerType) node = node._zod.def.innerType as typeof node;
  return Object.keys(node._zod.def.shape ?? {});
}

describe('loadConfig', () => {
  it('gives every default when no file and no environment are present', () => {
    const { dir } = tempConfig('');
    const config = loadConfig({ cwd: path.join(dir, 'nowhere'), env: {} });
    assert.equal(config.gateway.http_host, '127.0.0.1');
    assert.equal(config.gateway.http_port, 8091);
    assert.equal(config.auth.jwt_audience, 'turnstone-channel');
    assert.equal(config.database.url, `sqlite:${path.join(dir, 'nowhere', 'data', 'sandpiper.db')}`);
    assert.equal(config.agent.workspace_dir, path.join(dir, 'nowhere', 'data', 'workspaces'));
    assert.ok(Object.isFrozen(config.gateway));
  });

  it('lets environment variables win over the file and flags win over both', () => {
    const { file } = tempConfig('[gateway]\nhttp_port = 9000\n[log]\nlevel = "warn"\n');
    const config = loadConfig({ file, env: { SANDPIPER_HTTP_PORT: '9100', SANDPIPER_LOG_LEVEL: 'error' }, flags: { 'log.level': 'debug' } });
    assert.equal(config.gateway.http_port, 9100);
    assert.equal(config.log.level, 'debug');
  });

  it('fills a model api_key from the provider variable only when the file has none', () => {
    const { file } = tempConfig(
      '[models.a]\nprovider = "openai"\nmodel = "m"\n[models.b]\nprovider = "anthropic"\nmodel = "c"\napi_key = "file-key"\n',
    );
    const config = loadConfig({ file, env: { OPENAI_API_KEY: 'env-openai', ANTHROPIC_API_KEY: 'env-anthropic' } });
    assert.equal(config.models['a']?.api_key, 'env-openai');
    assert.equal(config.models['b']?.api_key, 'file-key');
    assert.equal(config.agent.default_model, 'a');
  });

  it('names an unknown key, an unknown table and the file', () => {
    const { file } = tempConfig('[discord]\ntokn = "x"\n[nonsense]\na = 1\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.ok(issues.some((issue) => issue.includes('discord.tokn') && issue.includes(file)));
    assert.ok(issues.some((issue) => issue.includes('unknown key nonsense')));
  });

  it('names the key and the variable for a wrong type from the environment', () => {
    const issues = issuesOf(() => loadConfig({ file: undefined, cwd: tmpdir(), env: { SANDPIPER_HTTP_PORT: 'eighty' } }));
    assert.equal(issues.length, 1);
    assert.match(issues[0] as string, /gateway\.http_port: .*SANDPIPER_HTTP_PORT/);
  });

  it('rejects only one of the two Slack tokens', () => {
    const { file } = tempConfig('[slack]\nbot_token = "xoxb-1"\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.ok(issues.some((issue) => issue.startsWith('slack.app_token:')));
  });

  it('rejects a default model that is not an alias', () => {
    const issues = issuesOf(() => loadConfig({ cwd: tmpdir(), env: { SANDPIPER_MODEL: 'ghost' } }));
    assert.ok(issues.some((issue) => issue.startsWith('agent.default_model:')));
  });

  it('reports invalid TOML with the file and line, without the file content', () => {
    const { file } = tempConfig('[gateway]\nhttp_port = = 1\njwt_secret = "hunter2"\n');
    const issues = issuesOf(() => loadConfig({ file, env: {} }));
    assert.match(issues[0] as string, /invalid TOML/);
    assert.ok(!issues.join(' ').includes('hunter2'));
  });

  it('fails clearly when --config names a missing file', () => {
    const issues = issuesOf(() => loadConfig({ file: '/nonexistent/sandpiper.toml', env: {} }));
    assert.match(issues[0] as string, /config file not found/);
  });
});

describe('config.example.toml', () => {
  const exampleFile = path.join(root, 'config.example.toml');
  const text = readFileSync(exampleFile, 'utf8');

  it('parses as a valid configuration', () => {
    const config = loadConfig({ file: exampleFile, env: {} });
    assert.equal(config.gateway.http_port, 8091);
  });

  it('documents every key of the schema', () => {
    const sections = (configSchema as unknown as { _zod: { def: { shape: Record<string, unknown> } } })._zod.def.shape;
    const missing: string[] = [];
    for (const [section, schema] of Object.entries(sections)) {
      const keys =
        section === 'models' ? shapeKeys(modelConfigSchema) : section === 'mcp' ? ['config_file'] : shapeKeys(schema);
      for (const key of keys) if (!new RegExp(`^#? ?${key} = `, 'm').test(text)) missing.push(`${section}.${key}`);
    }
    for (const key of shapeKeys(mcpServerConfigSchema)) {
      if (!new RegExp(`^#? ?${key} = `, 'm').test(text)) missing.push(`mcp.servers.<name>.${key}`);
    }
    assert.deepEqual(missing, []);
  });
});
