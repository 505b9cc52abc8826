/** The `man` tool: a manual page as plain text, with `info` as the fallback. */
import { scrubbedEnvironment } from '../../../shared/environment.js';
import type { ProcessOutcome } from '../run-process.js';
import { runContained } from '../run-contained.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';

const PAGE_PATTERN = /^[a-zA-Z0-9._-]+$/;
const SECTION_PATTERN = /^[1-9][a-z]?$/;
const LOOKUP_TIMEOUT_MS = 10_000;

function readArgs(args: Record<string, unknown>): { page: string; section: string | undefined } {
  const page = typeof args['page'] === 'string' ? args['page'].trim() : '';
  const rawSection =
    typeof args['section'] === 'string'
      ? args['section'].trim()
      : typeof args['section'] === 'number'
        ? String(args['section'])
        : '';
  return { page, section: SECTION_PATTERN.test(rawSection) ? rawSection : undefined };
}

function prepare(args: Record<string, unknown>): ToolPreparation {
  const { page, section } = readArgs(args);
  if (page === '')
    return {
      header: '✗ man: no page name',
      preview: '',
      needsApproval: false,
      approvalLabel: 'man',
      error: 'Error: no page name provided',
    };
  if (!PAGE_PATTERN.test(page) || page.startsWith('-')) {
    return {
      header: '✗ man: invalid page name',
      preview: '',
      needsApproval: false,
      approvalLabel: 'man',
      error: `Error: invalid page name '${page}'`,
    };
  }
  return {
    header: `⚙ man: ${page}${section === undefined ? '' : `(${section})`}`,
    preview: '',
    needsApproval: false,
    approvalLabel: 'man',
  };
}

/** Removes backspace overstrikes (bold/underline) and ANSI SGR sequences. */
export function cleanManText(text: string): string {
  let previous: string;
  let current = text;
  do {
    previous = current;
    current = current.replace(/[^\n]\x08/g, '');
  } while (current !== previous);
  return current.replace(/\x1b\[[0-9;]*m/g, '');
}

async function lookup(program: string, args: string[], context: ToolContext): Promise<ProcessOutcome> {
  const env = {
    ...scrubbedEnvironment(),
    MANWIDTH: '80',
    MAN_KEEP_FORMATTING: '0',
    MANPAGER: 'cat',
    PAGER: 'cat',
    GROFF_NO_SGR: '1',
  };
  return runContained(program, args, context, {
    signal: context.signal,
    timeoutMs: Math.min(LOOKUP_TIMEOUT_MS, context.timeoutMs > 0 ? context.timeoutMs : LOOKUP_TIMEOUT_MS),
    env,
  });
}

async function execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult> {
  const prepared = prepare(args);
  if (prepared.error !== undefined) return { output: prepared.error, isError: true };
  const { page, section } = readArgs(args);
  const refused = context.sandbox?.refusal;
  if (refused !== undefined) return { output: refused, isError: true };
  return lookupPage(page, section, context);
}

async function lookupPage(page: string, section: string | undefined, context: ToolContext): Promise<ToolResult> {
  const manual = await lookup('man', ['-P', 'cat', ...(section === undefined ? [] : [section]), '--', page], context);
  if (manual.cancelled) context.signal.throwIfAborted();
  if (manual.timedOut) return { output: 'Error: man page lookup timed out', isError: true };
  if (manual.exitCode === 0 && manual.stdout.trim() !== '')
    return { output: cleanManText(manual.stdout).trim(), isError: false };
  const info = await lookup('info', ['--subnodes', '-o', '-', '--', page], context);
  if (info.cancelled) context.signal.throwIfAborted();
  if (info.exitCode === 0 && info.stdout.trim() !== '' && !isInfoDirectoryFallback(info.stdout, page)) {
    return { output: cleanManText(info.stdout).trim(), isError: false };
  }
  if (manual.spawnError?.code === 'ENOENT' && info.spawnError?.code === 'ENOENT')
    return { output: 'Error: man command not available', isError: true };
  const where = section === undefined ? '' : ` in section ${section}`;
  return { output: `No man or info page found for '${page}'${where}`, isError: true };
}

/** `info` prints its top-level directory when it does not know the topic; that is not an answer. */
function isInfoDirectoryFallback(text: string, page: string): boolean {
  return (
    /^File: dir,\s+Node: Top/m.test(text) &&
    !new RegExp(`Node: ${page.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(text)
  );
}

/** Handler of the `man` tool. */
export const manHandler: ToolHandler = { name: 'man', prepare, execute };
