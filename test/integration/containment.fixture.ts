/** A gateway-like directory layout with planted secrets, and the real handlers contained over it. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { detectSandbox, type SandboxMode } from '../../src/agent/sandbox/detect-sandbox.js';
import { createSandbox, type Sandbox } from '../../src/agent/sandbox/sandbox.js';
import { createBuiltinHandlers } from '../../src/agent/tools/index.js';
import { createToolAccess, type ToolAccess } from '../../src/agent/tools/tool-access.js';
import type { ToolContext, ToolResult } from '../../src/agent/tools/tool.js';
import { createToolContext } from '../helpers/tool-context.js';

export const SECRETS = {
  config: 'CONFIG-SECRET-7731',
  database: 'DATABASE-SECRET-5512',
  otherWorkspace: 'OTHER-WS-SECRET-9012',
  outside: 'OUTSIDE-SECRET-3380',
};

export interface Layout {
  root: string;
  configFile: string;
  dataDir: string;
  databaseFile: string;
  workspace: string;
  otherWorkspace: string;
  outside: string;
  readRoot: string;
  access: ToolAccess;
  sandbox: Sandbox;
  context(overrides?: Partial<ToolContext>): ToolContext;
  call(name: string, args: Record<string, unknown>, overrides?: Partial<ToolContext>): Promise<ToolResult>;
  remove(): void;
}

/**
 * Builds the layout; `mode` picks the sandbox (`auto` = bubblewrap when the host has it, else process tools refused).
 * `bwrapCommand` stands in a bubblewrap that is missing or broken.
 */
export async function createLayout(mode: SandboxMode, options: { bwrapCommand?: string } = {}): Promise<Layout> {
  // Not under /tmp: the sandbox has a private /tmp, which would hide the planted files for the wrong reason.
  const root = mkdtempSync(path.join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sp-contain-'));
  const dataDir = path.join(root, 'data');
  const workspaces = path.join(dataDir, 'workspaces');
  const workspace = path.join(workspaces, 'ws1');
  const otherWorkspace = path.join(workspaces, 'ws2');
  const outside = path.join(root, 'outside');
  const readRoot = path.join(root, 'docs');
  for (const directory of [workspace, otherWorkspace, outside, readRoot]) mkdirSync(directory, { recursive: true });
  const configFile = path.join(root, 'config.toml');
  const databaseFile = path.join(dataDir, 'sandpiper.db');
  writeFileSync(configFile, `[discord]\ntoken = "${SECRETS.config}"\n`);
  writeFileSync(databaseFile, `SQLite format 3 ${SECRETS.database}\n`);
  writeFileSync(path.join(otherWorkspace, 'notes.txt'), `${SECRETS.otherWorkspace}\n`);
  writeFileSync(path.join(outside, 'secret.txt'), `${SECRETS.outside}\n`);
  writeFileSync(path.join(readRoot, 'guide.md'), 'read-only guide\n');
  writeFileSync(path.join(workspace, 'hello.txt'), 'hello from the workspace\n');
  const access = createToolAccess({ readRoots: [readRoot], configFile, databaseFile, trees: [dataDir, workspaces] });
  const status = await detectSandbox({ mode, ...options });
  const sandbox = createSandbox(status, {
    network: 'off',
    hidden: [...access.protectedFiles, ...access.protectedTrees],
    limits: { cpuSeconds: 20, memoryBytes: 4096 * 1024 * 1024, processes: 64, fileSizeBytes: 16 * 1024 * 1024 },
  });
  const handlers = createBuiltinHandlers();
  const context = (overrides: Partial<ToolContext> = {}): ToolContext =>
    createToolContext(workspace, { access, sandbox, timeoutMs: 20_000, ...overrides });
  const call = async (
    name: string,
    args: Record<string, unknown>,
    overrides: Partial<ToolContext> = {},
  ): Promise<ToolResult> => {
    const handler = handlers.get(name);
    if (handler === undefined) throw new Error(`no handler ${name}`);
    const ctx = context(overrides);
    const prepared = await handler.prepare(args, ctx);
    if (prepared.error !== undefined) return { output: prepared.error, isError: true };
    return handler.execute(args, ctx);
  };
  return {
    root,
    configFile,
    dataDir,
    databaseFile,
    workspace,
    otherWorkspace,
    outside,
    readRoot,
    access,
    sandbox,
    context,
    call,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** The text of a result, whatever its shape. */
export function text(result: ToolResult): string {
  return typeof result.output === 'string' ? result.output : JSON.stringify(result.output);
}

/** Asserts that no planted secret appears in the text. */
export function leaked(output: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, secret]) => output.includes(secret))
    .map(([name]) => name);
}
