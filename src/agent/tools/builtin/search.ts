/** The `search` tool: regular-expression search of file contents (ripgrep, grep, or a JavaScript walk). */
import { processEnvironment } from '../../../shared/environment.js';
import { constants } from 'node:fs';
import { access, lstat, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { isWithin } from '../../sandbox/bwrap-argv.js';
import { runContained } from '../run-contained.js';
import { canonicalPath } from '../resolve-tool-path.js';
import { isBinaryFile } from '../is-binary-file.js';
import { accessProblem, checkToolPath, NO_EXTRA_ACCESS, type ToolAccess } from '../tool-access.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

/** Matches kept per file, and in total. */
const MAX_PER_FILE = 200;
const MAX_TOTAL_LINES = 2000;
const SKIPPED_DIRECTORIES = ['.git', 'node_modules'];

export type SearchEngine = 'rg' | 'grep' | 'js';

export interface SearchHandlerOptions {
  /** Force an engine; by default ripgrep when on PATH, else grep, else the JavaScript walk. */
  engine?: SearchEngine;
}

async function onPath(program: string): Promise<boolean> {
  for (const directory of (processEnvironment()['PATH'] ?? '').split(path.delimiter)) {
    if (directory === '') continue;
    try {
      await access(path.join(directory, program), constants.X_OK);
      return true;
    } catch {
      // Not in this directory.
    }
  }
  return false;
}

let detected: Promise<SearchEngine> | undefined;
function detectEngine(): Promise<SearchEngine> {
  detected ??= (async () => ((await onPath('rg')) ? 'rg' : (await onPath('grep')) ? 'grep' : 'js'))();
  return detected;
}

function prepare(args: Record<string, unknown>): ToolPreparation {
  const query = typeof args['query'] === 'string' ? args['query'] : '';
  if (query === '')
    return {
      header: '✗ search: missing query',
      preview: '',
      needsApproval: false,
      approvalLabel: 'search',
      error: 'Error: missing query',
    };
  const where = typeof args['path'] === 'string' && args['path'].trim() !== '' ? args['path'].trim() : '.';
  return { header: `⚙ search: /${query}/ in ${where}`, preview: '', needsApproval: false, approvalLabel: 'search' };
}

function commandFor(engine: 'rg' | 'grep', query: string, target: string): [string, string[]] {
  // Without a path operand both tools search the working directory and print paths without a `./` prefix.
  const targets = target === '.' ? [] : ['--', target];
  if (engine === 'rg') {
    const excludes = SKIPPED_DIRECTORIES.flatMap((directory) => ['-g', `!${directory}`]);
    return [
      'rg',
      [
        '-n',
        '--null',
        '--no-heading',
        '--color=never',
        '--hidden',
        '-m',
        String(MAX_PER_FILE),
        ...excludes,
        '-e',
        query,
        ...targets,
      ],
    ];
  }
  const excludes = SKIPPED_DIRECTORIES.map((directory) => `--exclude-dir=${directory}`);
  return [
    'grep',
    ['-rn', '-Z', '-I', '-E', '-m', String(MAX_PER_FILE), '--color=never', ...excludes, '-e', query, ...targets],
  ];
}

async function execute(
  args: Record<string, unknown>,
  context: ToolContext,
  options: SearchHandlerOptions,
): Promise<ToolResult> {
  const query = String(args['query'] ?? '');
  if (query === '') return { output: 'Error: missing query', isError: true };
  const given = typeof args['path'] === 'string' && args['path'].trim() !== '' ? args['path'].trim() : '.';
  const access = context.access ?? NO_EXTRA_ACCESS;
  const located = await locateTarget(given, context.cwd, access);
  if (typeof located === 'string') return { output: located, isError: true };
  const { absolute, target, workspace } = located;
  const filter: SearchFilter = { workspace, access };
  const engine = options.engine ?? (await detectEngine());
  // Outside a sandbox rg/grep would read protected files under the target; the walk checks every file instead. With
  // no working sandbox, no process starts at all: the in-process walk (every file checked) answers.
  if (context.sandbox?.refusal !== undefined)
    return searchWithJavaScript(query, absolute, target, context.signal, filter);
  const exposed =
    context.sandbox?.kind !== 'bwrap' &&
    [...access.protectedFiles, ...access.protectedTrees].some(
      (entry) => isWithin(entry, absolute) && !isWithin(entry, workspace),
    );
  if (engine === 'js' || exposed) return searchWithJavaScript(query, absolute, target, context.signal, filter);
  return runSearchProgram(engine, query, absolute, target, context, filter);
}

/** The checked, canonical search target and how to name it to rg/grep; or the error text. */
async function locateTarget(
  given: string,
  cwd: string,
  access: ToolAccess,
): Promise<{ absolute: string; target: string; workspace: string } | string> {
  const check = await checkToolPath(given, cwd, access, 'read');
  if (!check.ok) return check.error;
  const absolute = check.canonical;
  try {
    const info = await stat(absolute);
    if (!info.isDirectory() && (!info.isFile() || info.nlink > 1))
      return `Error: ${given} is not a regular file or directory with a single link; search refuses it`;
  } catch {
    return `Error: ${given} not found`;
  }
  const workspace = await canonicalPath(cwd);
  const relative = path.relative(workspace, absolute);
  const target = relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? absolute : relative;
  return { absolute, target, workspace };
}

interface SearchFilter {
  workspace: string;
  access: ToolAccess;
}

async function runSearchProgram(
  engine: 'rg' | 'grep',
  query: string,
  absolute: string,
  target: string,
  context: ToolContext,
  filter: SearchFilter,
): Promise<ToolResult> {
  const [program, programArgs] = commandFor(engine, query, target);
  const outcome = await runContained(program, programArgs, context, {
    signal: context.signal,
    ...(context.timeoutMs > 0 ? { timeoutMs: context.timeoutMs } : {}),
  });
  if (outcome.cancelled) context.signal.throwIfAborted();
  if (outcome.timedOut)
    return { output: `Search timed out after ${Math.round(context.timeoutMs / 1000)}s`, isError: true };
  if (outcome.spawnError !== undefined) return searchWithJavaScript(query, absolute, target, context.signal, filter);
  if (outcome.exitCode === 1) return { output: '(no matches)', isError: false };
  if (outcome.exitCode !== 0) {
    const stderr = outcome.stderr.trim();
    return {
      output: stderr === '' ? `${program} error (exit ${outcome.exitCode ?? 'unknown'})` : `Search error: ${stderr}`,
      isError: true,
    };
  }
  const shown = await dropUnreachable(outcome.stdout.trim(), context.cwd, filter);
  return shown === '' ? { output: '(no matches)', isError: false } : { output: capLines(shown), isError: false };
}

/**
 * rg/grep print `file NUL line:text` (--null / -Z). Lines of files a file tool could not open are dropped: hard
 * links (another name of a file that may be outside) and anything the access rules refuse.
 */
async function dropUnreachable(stdout: string, cwd: string, filter: SearchFilter): Promise<string> {
  const verdicts = new Map<string, Promise<boolean>>();
  const lines: string[] = [];
  for (const line of stdout === '' ? [] : stdout.split('\n')) {
    const split = line.indexOf('\0');
    if (split === -1) {
      lines.push(line);
      continue;
    }
    const file = line.slice(0, split);
    let verdict = verdicts.get(file);
    if (verdict === undefined) {
      verdict = isReachableFile(path.resolve(cwd, file), filter);
      verdicts.set(file, verdict);
    }
    if (await verdict) lines.push(`${file}:${line.slice(split + 1)}`);
  }
  return lines.join('\n');
}

async function isReachableFile(file: string, filter: SearchFilter): Promise<boolean> {
  try {
    const info = await lstat(file);
    return (
      info.isFile() &&
      info.nlink <= 1 &&
      accessProblem(await canonicalPath(file), filter.workspace, filter.access, 'read') === undefined
    );
  } catch {
    return false;
  }
}

function capLines(text: string): string {
  const lines = text.split('\n');
  if (lines.length <= MAX_TOTAL_LINES) return text;
  return `${lines.slice(0, MAX_TOTAL_LINES).join('\n')}\n[${lines.length - MAX_TOTAL_LINES} more matching lines not shown; narrow the query or the path]`;
}

/** Fallback when neither rg nor grep exists: JavaScript regular expressions over a directory walk. */
async function searchWithJavaScript(
  query: string,
  absolute: string,
  display: string,
  signal: AbortSignal,
  filter: SearchFilter,
): Promise<ToolResult> {
  let pattern: RegExp;
  try {
    pattern = new RegExp(query);
  } catch (error) {
    return {
      output: `Search error: invalid regular expression (${error instanceof Error ? error.message : 'syntax'})`,
      isError: true,
    };
  }
  const results: string[] = [];
  for await (const file of walk(absolute, display)) {
    signal.throwIfAborted();
    // The walk never follows links, so a file's path is already canonical below the (canonical) target.
    if (!(await isReachableFile(file.absolute, filter))) continue;
    if (await isBinaryFile(file.absolute)) continue;
    const lines = (await readFile(file.absolute, 'utf8')).split('\n');
    let perFile = 0;
    for (let index = 0; index < lines.length && perFile < MAX_PER_FILE; index++) {
      if (!pattern.test(lines[index] ?? '')) continue;
      perFile++;
      results.push(`${file.display}:${index + 1}:${lines[index] ?? ''}`);
    }
    if (results.length > MAX_TOTAL_LINES) break;
  }
  return results.length === 0
    ? { output: '(no matches)', isError: false }
    : { output: capLines(results.join('\n')), isError: false };
}

async function* walk(absolute: string, display: string): AsyncGenerator<{ absolute: string; display: string }> {
  const info = await stat(absolute);
  if (!info.isDirectory()) {
    yield { absolute, display };
    return;
  }
  const entries = await readdir(absolute, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (entry.isDirectory() && SKIPPED_DIRECTORIES.includes(entry.name)) continue;
    if (!entry.isDirectory() && !entry.isFile()) continue;
    yield* walk(path.join(absolute, entry.name), display === '.' ? entry.name : path.join(display, entry.name));
  }
}

/** Creates the `search` handler (tests can force an engine). */
export function createSearchHandler(options: SearchHandlerOptions = {}): ToolHandler {
  return { name: 'search', prepare, execute: (args, context) => execute(args, context, options) };
}

/** Handler of the `search` tool with engine auto-detection. */
export const searchHandler: ToolHandler = createSearchHandler();
