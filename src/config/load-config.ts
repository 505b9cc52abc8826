/** Loads configuration: TOML file, then environment variables, then flags; validates once into a frozen Config. */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { z } from 'zod';
import { ConfigError } from '../shared/errors.js';
import { processEnvironment } from '../shared/environment.js';
import { isPlainObject } from '../shared/json.js';
import { configSchema, type RawConfig } from './config-schema.js';

/** The validated configuration with every derived default resolved. */
export type Config = Readonly<
  Omit<RawConfig, 'gateway' | 'database' | 'agent'> & {
    gateway: Omit<RawConfig['gateway'], 'data_dir'> & { data_dir: string };
    database: { url: string };
    agent: Omit<RawConfig['agent'], 'workspace_dir'> & { workspace_dir: string };
    /** The file the configuration came from, when one existed. */
    source: { file: string | undefined };
  }
>;

export type Environment = Readonly<Record<string, string | undefined>>;

/** Flag overrides by dotted key, e.g. `{'log.level': 'debug'}`. */
export type FlagOverrides = Readonly<Record<string, unknown>>;

export interface LoadConfigOptions {
  /** Path given with --config; when absent `./config.toml` is used if it exists. */
  file?: string | undefined;
  env?: Environment;
  flags?: FlagOverrides;
  cwd?: string;
}

type EnvKind = 'string' | 'int';
/** Environment variables that set a key (the reference lists them). */
export const CONFIG_ENV_KEYS: ReadonlyArray<[string, string, EnvKind]> = [
  ['SANDPIPER_HTTP_HOST', 'gateway.http_host', 'string'],
  ['SANDPIPER_HTTP_PORT', 'gateway.http_port', 'int'],
  ['SANDPIPER_ADVERTISE_URL', 'gateway.advertise_url', 'string'],
  ['SANDPIPER_PUBLIC_URL', 'gateway.public_url', 'string'],
  ['SANDPIPER_MCP_TOKEN_KEY', 'mcp.token_key', 'string'],
  ['SANDPIPER_DATA_DIR', 'gateway.data_dir', 'string'],
  ['SANDPIPER_DATABASE_URL', 'database.url', 'string'],
  ['SANDPIPER_JWT_SECRET', 'auth.jwt_secret', 'string'],
  ['SANDPIPER_ADMIN_SECRET', 'auth.admin_secret', 'string'],
  ['SANDPIPER_MODEL', 'agent.default_model', 'string'],
  ['TAVILY_API_KEY', 'tools.tavily_api_key', 'string'],
  ['SANDPIPER_DISCORD_TOKEN', 'discord.token', 'string'],
  ['SANDPIPER_SLACK_BOT_TOKEN', 'slack.bot_token', 'string'],
  ['SANDPIPER_SLACK_APP_TOKEN', 'slack.app_token', 'string'],
  ['SANDPIPER_SLACK_SIGNING_SECRET', 'slack.signing_secret', 'string'],
  ['SANDPIPER_SLACK_CLIENT_SECRET', 'slack.client_secret', 'string'],
  ['SANDPIPER_SLACK_TOKEN_KEY', 'slack.token_key', 'string'],
  ['SANDPIPER_LOG_LEVEL', 'log.level', 'string'],
  ['SANDPIPER_LOG_FORMAT', 'log.format', 'string'],
  ['SANDPIPER_OTLP_ENDPOINT', 'telemetry.otlp_endpoint', 'string'],
];

export const PROVIDER_KEY_ENV: Readonly<Record<string, string>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
};

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? processEnvironment();
  const file = resolveConfigFile(options.file, cwd);
  const raw = file === undefined ? {} : readTomlFile(file);
  const fromFile = structuredClone(raw);
  const sources = new Map<string, string>();
  applyEnvironment(raw, env, sources);
  for (const [key, value] of Object.entries(options.flags ?? {})) {
    if (value === undefined) continue;
    setPath(raw, key.split('.'), value);
    sources.set(key, `flag for ${key}`);
  }
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    const origin = (keys: readonly string[]): string =>
      sources.get(keys.join('.')) ?? (file !== undefined && definedInFile(fromFile, keys) ? `in ${file}` : 'not set');
    throw new ConfigError(parsed.error.issues.map((issue) => describeIssue(issue, file, origin)));
  }
  // A relative path written in the file is relative to the file's folder; one from a variable or flag, to cwd.
  const fileDir = file === undefined ? undefined : path.dirname(file);
  const base = (key: string): string => (fileDir !== undefined && !sources.has(key) ? fileDir : cwd);
  return freezeDeep(resolveDefaults(parsed.data, { file, base, stateDir: defaultStateDir(env) }));
}

function resolveConfigFile(file: string | undefined, cwd: string): string | undefined {
  if (file !== undefined) {
    const absolute = path.resolve(cwd, file);
    if (!existsSync(absolute)) throw new ConfigError([`config file not found: ${absolute}`]);
    return absolute;
  }
  const fallback = path.resolve(cwd, 'config.toml');
  return existsSync(fallback) ? fallback : undefined;
}

function readTomlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError([`cannot read config file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`]);
  }
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const line = (error as { line?: number }).line;
    throw new ConfigError([`${file}${line === undefined ? '' : `:${line}`}: invalid TOML (${firstLine(error)})`]);
  }
}

function applyEnvironment(raw: Record<string, unknown>, env: Environment, sources: Map<string, string>): void {
  for (const [variable, key, kind] of CONFIG_ENV_KEYS) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    const typed = kind === 'int' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
    setPath(raw, key.split('.'), typed);
    sources.set(key, `environment variable ${variable}`);
  }
  const models = raw['models'];
  if (!isPlainObject(models)) return;
  for (const [alias, model] of Object.entries(models)) {
    if (!isPlainObject(model) || model['api_key'] !== undefined) continue;
    const variable = typeof model['provider'] === 'string' ? PROVIDER_KEY_ENV[model['provider']] : undefined;
    const value = variable === undefined ? undefined : env[variable];
    if (variable !== undefined && value) {
      model['api_key'] = value;
      sources.set(`models.${alias}.api_key`, `environment variable ${variable}`);
    }
  }
}

function setPath(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!isPlainObject(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

function hasPath(target: Record<string, unknown>, keys: readonly string[]): boolean {
  let node: unknown = target;
  for (const key of keys) {
    if (!isPlainObject(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

/** The key, or (for a required key that is missing) its table, appears in the file. */
function definedInFile(fromFile: Record<string, unknown>, keys: readonly string[]): boolean {
  return hasPath(fromFile, keys) || (keys.length > 1 && hasPath(fromFile, keys.slice(0, -1)));
}

/** Keys that were removed, and what replaced them (named in the error, so an old config says what to write). */
const REPLACED_KEYS: Readonly<Record<string, string>> = {
  'tools.sandbox_network':
    'tools.sandbox_network was removed (it gave tools the whole host network, loopback included); the sandbox has no network of its own: set tools.network = "ask" (egress through the gateway\'s proxy, new hosts need the owner\'s approval) or "off"',
};

/** One issue as `section.key: problem (source)`; the source is the file, the variable or flag, or `not set`. */
function describeIssue(
  issue: z.core.$ZodIssue,
  file: string | undefined,
  origin: (keys: readonly string[]) => string,
): string {
  const base = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => [...base, key].join('.'));
    const where = file ? ` in ${file}` : '';
    const replaced = keys.map((key) => REPLACED_KEYS[key]).filter((hint) => hint !== undefined);
    return `unknown key ${keys.join(', ')}${where}${replaced.length > 0 ? `: ${replaced.join('; ')}` : ''}`;
  }
  const key = base.join('.') || '(root)';
  return `${key}: ${issue.message} (${origin(base)})`;
}

/** The platform's state folder for Sandpiper: $XDG_STATE_HOME/sandpiper, else ~/.local/state/sandpiper. */
export function defaultStateDir(env: Environment): string {
  const xdg = env['XDG_STATE_HOME'];
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'sandpiper');
  return path.join(env['HOME'] || homedir(), '.local', 'state', 'sandpiper');
}

interface PathBases {
  file: string | undefined;
  /** The folder a relative value of `key` is resolved against. */
  base(key: string): string;
  /** data_dir when neither the file nor a variable or flag sets it. */
  stateDir: string;
}

/** A relative `sqlite:` file is resolved like the other paths; other URLs are kept as given. */
function resolveDatabaseUrl(url: string | undefined, dataDir: string, bases: PathBases): string {
  if (url === undefined) return `sqlite:${path.join(dataDir, 'sandpiper.db')}`;
  const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
  if (file === undefined || file === ':memory:' || file.startsWith('//') || path.isAbsolute(file)) return url;
  return `sqlite:${path.resolve(bases.base('database.url'), file)}`;
}

function resolveDefaults(data: RawConfig, bases: PathBases): Config {
  const configured = data.gateway.data_dir;
  const fallback = bases.file === undefined ? bases.stateDir : path.join(path.dirname(bases.file), 'data');
  const dataDir = configured === undefined ? fallback : path.resolve(bases.base('gateway.data_dir'), configured);
  const aliases = Object.keys(data.models);
  const workspace = data.agent.workspace_dir;
  return {
    ...data,
    gateway: { ...data.gateway, data_dir: dataDir },
    database: { url: resolveDatabaseUrl(data.database.url, dataDir, bases) },
    agent: {
      ...data.agent,
      default_model: data.agent.default_model ?? aliases[0],
      workspace_dir:
        workspace === undefined
          ? path.join(dataDir, 'workspaces')
          : path.resolve(bases.base('agent.workspace_dir'), workspace),
    },
    source: { file: bases.file },
  } as Config;
}

function freezeDeep<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) freezeDeep(child);
    Object.freeze(value);
  }
  return value;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'parse error';
}
