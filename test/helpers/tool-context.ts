/** Test helper for the built-in tools: a ToolContext over a temporary workspace directory. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ToolContext } from '../../src/agent/tools/tool.js';
import { createSilentLogger } from '../../src/shared/logger.js';
import { waitFor } from './wait-for.js';

/** A context whose `cwd` is `directory`; override any field. */
export function createToolContext(directory: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    workstreamId: 'ws-test',
    cwd: directory,
    timeoutMs: 60_000,
    outputLimit: 100_000,
    supportsVision: false,
    readFiles: new Set<string>(),
    logger: createSilentLogger(),
    ...overrides,
  };
}

/** A fresh temporary directory and its remover. */
export async function createTempWorkspace(
  prefix = 'sandpiper-tools-',
): Promise<{ directory: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) };
}

export { waitFor };
