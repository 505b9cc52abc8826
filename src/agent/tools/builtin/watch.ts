/** The `watch` tool: create, list and cancel periodic command polls of this workstream (the runner is agent/watch/). */
import { newHexId } from '../../../shared/ids.js';
import { isoFromMs } from '../../../shared/time.js';
import type { WatchRow, WatchStore } from '../../../storage/watch-store.js';
import { validateStopOn } from '../../watch/watch-condition.js';
import {
  DEFAULT_INTERVAL,
  formatInterval,
  MAX_INTERVAL_SECONDS,
  MIN_INTERVAL_SECONDS,
  parseDuration,
} from '../../watch/watch-durations.js';
import type { ToolContext, ToolHandler, ToolPreparation, ToolResult } from '../tool.js';
import { findBlockedPattern, sanitizeCommand } from './bash.js';

export const MAX_ACTIVE_WATCHES = 5;
export const DEFAULT_MAX_POLLS = 100;

export interface WatchToolOptions {
  /** Without a store (no database) every action answers with a clear error. */
  store?: WatchStore;
  now?: () => number;
}

interface CreateSpec {
  name: string | undefined;
  command: string;
  intervalSeconds: number;
  pollEvery: string;
  stopOn: string | null;
  maxPolls: number;
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

function failed(error: string, label = 'watch'): ToolPreparation {
  return {
    header: `✗ watch: ${error.replace(/^Error:\s*/, '')}`,
    preview: '',
    needsApproval: false,
    approvalLabel: label,
    error,
  };
}

/** Validates a create request against the arguments and the workstream's active watches. */
function checkCreate(args: Record<string, unknown>, active: readonly WatchRow[]): CreateSpec | string {
  const command = sanitizeCommand(text(args['command']));
  if (command === '') return "Error: 'command' is required for create";
  const blocked = findBlockedPattern(command);
  if (blocked !== undefined) return `Blocked: command matches dangerous pattern '${blocked}'`;
  const pollEvery = text(args['poll_every']) || DEFAULT_INTERVAL;
  const interval = checkInterval(pollEvery);
  if (typeof interval === 'string') return interval;
  const stopOn = text(args['stop_on']) || null;
  const invalid = stopOn === null ? undefined : validateStopOn(stopOn);
  if (invalid !== undefined) {
    return `Error: invalid stop_on condition: ${invalid}. Write one Python-style expression over output, data, exit_code, prev_output and changed, e.g. 'data["state"] == "MERGED"' or '"error" in output'.`;
  }
  if (active.length >= MAX_ACTIVE_WATCHES)
    return `Error: maximum ${MAX_ACTIVE_WATCHES} active watches per workstream; cancel one first`;
  const name = text(args['name']) || undefined;
  if (name !== undefined && active.some((watch) => watch.name === name))
    return `Error: a watch named "${name}" already exists in this workstream`;
  const rawMax = args['max_polls'];
  const maxPolls = typeof rawMax === 'number' && Number.isInteger(rawMax) && rawMax > 0 ? rawMax : DEFAULT_MAX_POLLS;
  return { name, command, intervalSeconds: interval, pollEvery, stopOn, maxPolls };
}

function checkInterval(pollEvery: string): number | string {
  const interval = parseDuration(pollEvery);
  if (!interval.ok) return `Error: invalid poll_every: ${interval.error}`;
  if (interval.value < MIN_INTERVAL_SECONDS) return `Error: minimum poll interval is ${MIN_INTERVAL_SECONDS}s`;
  if (interval.value > MAX_INTERVAL_SECONDS) return `Error: maximum poll interval is ${MAX_INTERVAL_SECONDS}s`;
  return interval.value;
}

function describeWatch(watch: WatchRow): string {
  return `  ${watch.name} (${watch.watchId.slice(0, 8)}): every ${formatInterval(watch.intervalSecs)}, poll #${watch.pollCount}/${watch.maxPolls}, condition: ${watch.stopOn ?? 'on change'}, cmd: ${watch.command.slice(0, 60)}`;
}

async function prepareWatch(
  store: WatchStore,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolPreparation> {
  const action = text(args['action']).toLowerCase();
  if (action === 'list') return { header: '⏱ watch list', preview: '', needsApproval: false, approvalLabel: 'watch' };
  if (action === 'cancel') {
    const name = text(args['name']);
    if (name === '') return failed("Error: 'name' is required for cancel");
    return { header: `⏱ watch cancel: ${name}`, preview: '', needsApproval: false, approvalLabel: 'watch' };
  }
  if (action !== 'create') return failed(`Error: unknown action '${action}'. Use create, list, or cancel.`);
  const spec = checkCreate(args, await store.listForWorkstream(context.workstreamId));
  if (typeof spec === 'string') return failed(spec);
  const firstLine = spec.command.split('\n', 1)[0] ?? '';
  return {
    header: `⏱ watch: "${spec.name ?? '(unnamed)'}" every ${spec.pollEvery}`,
    preview: `${firstLine}${spec.stopOn === null ? ', on change' : `, stop_on=${spec.stopOn}`}`,
    needsApproval: true,
    approvalLabel: 'watch',
  };
}

async function cancelWatch(store: WatchStore, active: readonly WatchRow[], wanted: string): Promise<ToolResult> {
  const found =
    active.find((watch) => watch.name === wanted) ?? active.find((watch) => watch.watchId.startsWith(wanted));
  if (found === undefined) return { output: `Watch "${wanted}" not found.`, isError: true };
  await store.update(found.watchId, { active: false, nextPoll: null });
  return { output: `Watch "${found.name}" cancelled.`, isError: false };
}

/** Stores the watch the create request describes (checked again at execute) and answers what it will do. */
async function createWatch(store: WatchStore, nowMs: number, spec: CreateSpec, wsId: string): Promise<ToolResult> {
  const name = spec.name ?? `watch-${newHexId(2)}`;
  const watchId = newHexId();
  await store.create({
    watchId,
    wsId,
    name,
    command: spec.command,
    intervalSecs: spec.intervalSeconds,
    stopOn: spec.stopOn,
    maxPolls: spec.maxPolls,
    nextPoll: isoFromMs(nowMs + spec.intervalSeconds * 1000),
    createdBy: 'model',
  });
  const lines = [
    `Watch "${name}" created (${watchId.slice(0, 8)}).`,
    `  every: ${formatInterval(spec.intervalSeconds)} (first poll in ${formatInterval(spec.intervalSeconds)})`,
    `  max polls: ${spec.maxPolls}`,
    `  command: ${spec.command}`,
    `  condition: ${spec.stopOn ?? 'fire on output change'}`,
    'Results arrive in this conversation as messages.',
  ];
  return { output: lines.join('\n'), isError: false };
}

async function executeWatch(
  store: WatchStore,
  nowMs: () => number,
  args: Record<string, unknown>,
  context: ToolContext,
): Promise<ToolResult> {
  const action = text(args['action']).toLowerCase();
  const active = await store.listForWorkstream(context.workstreamId);
  if (action === 'list') {
    const output =
      active.length === 0 ? 'No active watches.' : ['Active watches:', ...active.map(describeWatch)].join('\n');
    return { output, isError: false };
  }
  if (action === 'cancel') return cancelWatch(store, active, text(args['name']));
  if (action !== 'create')
    return { output: `Error: unknown action '${action}'. Use create, list, or cancel.`, isError: true };
  // Checked again: other watches may have been created while the approval was pending.
  const spec = checkCreate(args, active);
  if (typeof spec === 'string') return { output: spec, isError: true };
  return createWatch(store, nowMs(), spec, context.workstreamId);
}

export function createWatchHandler(options: WatchToolOptions = {}): ToolHandler {
  const now = options.now ?? Date.now;
  const store = options.store;
  return {
    name: 'watch',
    prepare: async (args, context) =>
      store === undefined ? failed('Error: storage unavailable') : prepareWatch(store, args, context),
    execute: async (args, context) =>
      store === undefined
        ? { output: 'Error: storage unavailable', isError: true }
        : executeWatch(store, now, args, context),
  };
}
