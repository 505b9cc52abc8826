/**
 * The official MCP registry (`GET <registry>/v0/servers?search=…`): search it, and turn one of its servers into an
 * `mcp_servers` row. An npm package runs with `npx -y`, a PyPI one with `uvx`, a remote as a streamable HTTP server;
 * stdio rows from the database always run in the tool sandbox (ADR 0035), so an installed server is sandboxed.
 * The registry's text is someone else's: it is shown, never executed beyond the package named.
 */
import { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';

export const DEFAULT_MCP_REGISTRY = 'https://registry.modelcontextprotocol.io';

const packageSchema = z.looseObject({
  registryType: z.string().optional(),
  registry_name: z.string().optional(),
  identifier: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
  transport: z.looseObject({ type: z.string().optional() }).optional(),
  environmentVariables: z.array(z.looseObject({ name: z.string(), isRequired: z.boolean().optional() })).optional(),
});
const serverSchema = z.looseObject({
  name: z.string(),
  description: z.string().default(''),
  version: z.string().default(''),
  packages: z.array(packageSchema).default([]),
  remotes: z.array(z.looseObject({ type: z.string().optional(), url: z.string() })).default([]),
});
/** v0 lists `{server, _meta}` items (older answers listed the server objects themselves). */
const listSchema = z.looseObject({ servers: z.array(z.unknown()).default([]) });

export type RegistryServer = z.infer<typeof serverSchema>;

/** What `mcp install` adds: the body of `addMcpServer`. */
export interface RegistryInstall {
  name: string;
  command?: string;
  args?: string[];
  url?: string;
  /** Environment variables the server requires (to pass with `--env`). */
  required_env: string[];
}

function parseServers(body: unknown): RegistryServer[] {
  const list = listSchema.safeParse(body);
  if (!list.success) throw new GatewayError('BAD_REQUEST', 'the MCP registry answered with an unexpected shape');
  return list.data.servers.flatMap((item) => {
    const wrapped =
      typeof item === 'object' && item !== null && 'server' in item ? (item as { server: unknown }).server : item;
    const parsed = serverSchema.safeParse(wrapped);
    return parsed.success ? [parsed.data] : [];
  });
}

/** Servers matching `query` (at most `limit`). */
export async function searchRegistry(
  registry: string,
  query: string,
  limit: number,
  signal?: AbortSignal,
): Promise<RegistryServer[]> {
  const url = new URL('/v0/servers', registry);
  url.searchParams.set('search', query);
  url.searchParams.set('limit', String(limit));
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.any([AbortSignal.timeout(15_000), ...(signal ? [signal] : [])]),
    });
  } catch (error) {
    throw new GatewayError(
      'TIMEOUT',
      `the MCP registry at ${url.origin} did not answer (${error instanceof Error ? error.name : 'network error'})`,
    );
  }
  if (!response.ok)
    throw new GatewayError('BAD_REQUEST', `the MCP registry at ${url.origin} answered HTTP ${response.status}`);
  // A body that is no JSON is handled as any unusable answer: parseServers refuses it with a clear error.
  const body: unknown = await response.json().catch(() => undefined);
  return parseServers(body).slice(0, limit);
}

/** A local server name from the registry's `io.github.owner/name`: its last part, made of allowed characters. */
export function localName(registryName: string): string {
  const last = registryName.split('/').at(-1) ?? registryName;
  return (
    last
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 64) || 'server'
  );
}

/** How to run a registry server: a stdio package (npm, then PyPI), else its streamable HTTP remote. */
export function installOf(server: RegistryServer, name: string): RegistryInstall {
  for (const pkg of server.packages) {
    const kind = pkg.registryType ?? pkg.registry_name;
    const id = pkg.identifier ?? pkg.name;
    if (id === undefined || (pkg.transport?.type ?? 'stdio') !== 'stdio') continue;
    const required = (pkg.environmentVariables ?? []).filter((env) => env.isRequired === true).map((env) => env.name);
    const pinned = pkg.version ?? '';
    if (kind === 'npm')
      return { name, command: 'npx', args: ['-y', pinned ? `${id}@${pinned}` : id], required_env: required };
    if (kind === 'pypi')
      return { name, command: 'uvx', args: [pinned ? `${id}==${pinned}` : id], required_env: required };
  }
  const remote = server.remotes.find((entry) => entry.type === undefined || entry.type === 'streamable-http');
  if (remote) return { name, url: remote.url, required_env: [] };
  throw new GatewayError(
    'BAD_REQUEST',
    `registry server "${server.name}" has no npm or PyPI stdio package and no streamable HTTP remote`,
  );
}

/** The registry server named exactly `registryName`. */
export async function findRegistryServer(
  registry: string,
  registryName: string,
  signal?: AbortSignal,
): Promise<RegistryServer> {
  const found = (await searchRegistry(registry, registryName, 50, signal)).find(
    (server) => server.name === registryName,
  );
  if (!found)
    throw new GatewayError('NOT_FOUND', `no server named "${registryName.slice(0, 200)}" in the MCP registry`);
  return found;
}
