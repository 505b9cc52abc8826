/**
 * Loaded into every test process (`--import ./test/setup/open-handles.ts`): a test file whose process is still kept
 * alive by a handle (a server, a socket, a ref'd timer, a child process) a short while after its tests and `after`
 * hooks finished fails, naming the handle types. This replaces `--test-force-exit`, which hid such leaks.
 * `SANDPIPER_TEST_HANDLES=trace` also prints where each leaked handle was created (slower: records a stack per handle).
 */
import { createHook } from 'node:async_hooks';
import { after } from 'node:test';

/** How long the file's own `after` hooks and closing sockets get before what is left counts as leaked. */
export const GRACE_MS = Number(process.env.SANDPIPER_TEST_HANDLE_GRACE_MS ?? 5_000);
/**
 * One-shot requests in flight, not handles a test opened. Pipes count beyond the ones the process started with: a
 * child's stdio pipe held open by a grandchild that outlived it keeps the process alive.
 */
const IGNORED = new Set(['TTYWrap', 'CloseReq', 'FSReqPromise', 'FSReqCallback']);

const baseline = countByType(process.getActiveResourcesInfo());
/** Handle types and counts alive now (a snapshot to compare a later `leakedSince` against). */
export const liveHandles = (): Map<string, number> => countByType(process.getActiveResourcesInfo());
const origins = process.env.SANDPIPER_TEST_HANDLES === 'trace' ? traceOrigins() : undefined;

// Registered first on the root test, so this runs before the file's own top-level `after` hooks: it only starts an
// unref'd watch, which never keeps the process alive. A clean file exits before the watch fires.
after(() => {
  const started = Date.now();
  const watch = setInterval(() => {
    const leaked = leakedTypes();
    if (leaked.length === 0 || Date.now() - started < GRACE_MS) return;
    clearInterval(watch);
    const file = process.argv[1] ?? 'this test file';
    process.stderr.write(`open handles ${GRACE_MS} ms after the tests of ${file} finished: ${leaked.join(', ')}\n`);
    if (origins) for (const stack of liveOrigins(origins)) process.stderr.write(`${stack}\n`);
    else process.stderr.write(`${TRACE_HINT}\n`);
    process.exit(1);
  }, 100);
  watch.unref();
});

function leakedTypes(): string[] {
  return leakedSince(baseline);
}

/** The handle types alive now beyond those of `before` (`×n` when several), left-out types aside. */
export function leakedSince(before: Map<string, number>): string[] {
  const now = countByType(process.getActiveResourcesInfo());
  const leaked: string[] = [];
  for (const [type, count] of now) {
    const extra = count - (before.get(type) ?? 0);
    if (extra > 0 && !IGNORED.has(type)) leaked.push(extra > 1 ? `${type} ×${extra}` : type);
  }
  return leaked;
}

function countByType(types: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const type of types) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

interface Origin {
  resource: WeakRef<object>;
  stack: string;
}

/** Stacks of the traced handles that still keep the process alive (unref'd timers and handles are left out). */
export const TRACE_HINT = '(run it with SANDPIPER_TEST_HANDLES=trace to see where they were created)';

/** Where the live traced handles were created (SANDPIPER_TEST_HANDLES=trace), else undefined. */
export const liveHandleOrigins = (): string[] | undefined => (origins ? liveOrigins(origins) : undefined);

function liveOrigins(origins: Map<number, Origin>): string[] {
  const stacks: string[] = [];
  for (const { resource, stack } of origins.values()) {
    const handle = resource.deref() as { hasRef?: () => boolean } | undefined;
    if (handle && (typeof handle.hasRef !== 'function' || handle.hasRef())) stacks.push(stack);
  }
  return stacks;
}

/** Creation stacks of the live handles (timers, sockets, servers, processes), by async id. */
function traceOrigins(): Map<number, Origin> {
  const live = new Map<number, Origin>();
  const kinds = /^(Timeout|TCPWRAP|TCPSERVERWRAP|PROCESSWRAP|PIPEWRAP|UDPWRAP|SIGNALWRAP|Immediate)$/;
  createHook({
    init(id, type, _trigger, resource: object) {
      if (!kinds.test(type)) return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      const stack = new Error(`${type} created`).stack ?? type;
      Error.stackTraceLimit = limit;
      live.set(id, {
        resource: new WeakRef(resource),
        stack: stack
          .split('\n')
          .slice(1)
          .filter((line) => !line.includes('node:internal') && !line.includes('open-handles.ts'))
          .slice(0, 14)
          .join('\n'),
      });
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  return live;
}
