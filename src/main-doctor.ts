/** `sandpiper doctor` (composition): database, model endpoints, Discord, Slack, each MCP server's start, sandbox. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadMcpServerSpecs } from './agent/mcp/load-mcp-server-specs.js';
import { createMcpManager } from './agent/mcp/mcp-manager.js';
import type { Config } from './config/index.js';
import { fail, guarded, ok, skip, warn, type CheckResult } from './doctor/doctor-check.js';
import { checkDiscord, checkModel, checkSlack } from './doctor/platform-checks.js';
import { checkImages } from './doctor/images-check.js';
import { checkMcpOAuth } from './doctor/mcp-oauth-check.js';
import { checkSandbox } from './doctor/sandbox-check.js';
import { prepareContainment } from './main-containment.js';
import { processEnvironment } from './shared/environment.js';
import { createSilentLogger } from './shared/logger.js';
import { openStorage, type OpenStorage } from './storage-open.js';

const MIGRATE_FIX = 'run: sandpiper migrate (with the same --config), or check database.url / gateway.data_dir';

/** Opens the database without creating or migrating it; reports pending migrations. */
async function checkDatabase(config: Config): Promise<{ result: CheckResult; storage?: OpenStorage }> {
  const url = config.database.url;
  const shown = url.startsWith('sqlite:') ? url : url.replace(/\/\/[^@/]*@/, '//');
  if (url.startsWith('sqlite:') && url !== 'sqlite::memory:' && !existsSync(url.slice('sqlite:'.length))) {
    return { result: fail('database', `no database at ${shown}`, MIGRATE_FIX) };
  }
  let storage: OpenStorage | undefined;
  try {
    storage = await openStorage(config, createSilentLogger(), { migrate: false });
    const pending = await storage.pendingMigrations();
    if (pending.length > 0)
      return { result: fail('database', `${shown}: ${pending.length} migration(s) not applied`, MIGRATE_FIX), storage };
    return { result: ok('database', `${shown}, migrations up to date`), storage };
  } catch (error) {
    await storage?.close();
    const message = error instanceof Error ? error.message : String(error);
    return {
      result: fail(
        'database',
        `${shown}: ${message}`,
        'check that the database is running and database.url (SANDPIPER_DATABASE_URL)',
      ),
    };
  }
}

/**
 * Starts every configured MCP server (TOML, file, database) once, reports each, and stops them again. Servers that
 * ask for the sandbox (all database ones, ADR 0035) start in it, as under `start`; without one they are refused.
 */
async function checkMcpServers(config: Config, storage: OpenStorage | undefined): Promise<CheckResult[]> {
  const merged = await loadMcpServerSpecs({
    mcp: config.mcp,
    baseDir: config.source.file ? path.dirname(config.source.file) : process.cwd(),
    ...(storage ? { store: storage.stores.mcpServers } : {}),
  });
  const results: CheckResult[] = merged.rejected.map((entry) =>
    fail(`mcp ${entry.name}`, `definition rejected (${entry.source}): ${entry.reason}`, 'fix the server definition'),
  );
  if (merged.servers.length === 0) return results.length > 0 ? results : [skip('mcp', 'no MCP servers configured')];
  // A broken `tools.sandbox = "bwrap"` is the sandbox check's to report; here such servers are then refused.
  const containment = await prepareContainment(config, createSilentLogger()).catch(() => undefined);
  const sandbox = containment && {
    sandbox: containment.sandbox,
    workDir: (name: string) => path.join(config.gateway.data_dir, 'mcp', name),
  };
  const manager = createMcpManager({
    servers: merged.servers,
    parentEnv: processEnvironment(),
    connectTimeoutMs: 20_000,
    startWaitMs: 25_000,
    ...(sandbox ? { sandbox } : {}),
  });
  try {
    await manager.start(AbortSignal.timeout(30_000));
    for (const server of manager.status().perServer) {
      const name = `mcp ${server.name}`;
      if (server.connected)
        results.push(
          ok(
            name,
            `${server.transport}, ${server.tools} tools, ${server.resources} resources, ${server.prompts} prompts`,
          ),
        );
      else if (server.error === 'needs authorization')
        results.push(ok(name, `${server.transport}, asks each user to authorize (OAuth discovery answered)`));
      else
        results.push(
          fail(
            name,
            `did not start: ${server.error ?? 'no answer'}`,
            `check the command/url of MCP server "${server.name}" (${server.source})`,
          ),
        );
    }
  } finally {
    await manager.shutdown();
  }
  return results;
}

/** Runs every check after the configuration loaded; each failure says what to do. */
export async function runDoctor(config: Config): Promise<CheckResult[]> {
  const results: CheckResult[] = [ok('config', config.source.file ?? 'no config file (defaults and environment)')];
  const database = await checkDatabase(config);
  results.push(database.result);
  try {
    const models = Object.entries(config.models);
    if (models.length === 0)
      results.push(warn('models', 'no model configured', 'add a [models.<alias>] table (see config.example.toml)'));
    const platformChecks = [
      ...models.map(([alias, model]) =>
        guarded(`model ${alias}`, `check models.${alias}`, () => checkModel(alias, model)),
      ),
      guarded('discord', 'check the discord settings', () => checkDiscord(config.discord)),
      guarded('slack', 'check the slack settings', () => checkSlack(config.slack)),
    ];
    results.push(...(await Promise.all(platformChecks)));
    results.push(
      ...(await checkMcpServers(config, database.storage).catch((error: unknown) => [
        fail('mcp', String(error), 'check the [mcp] settings'),
      ])),
    );
    results.push(...(await checkMcpOAuth(config)));
    results.push(await guarded('sandbox', 'check bubblewrap', checkSandbox));
    results.push(await guarded('images', 'reinstall with npm ci', checkImages));
  } finally {
    await database.storage?.close();
  }
  return results;
}
