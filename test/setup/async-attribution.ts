/**
 * node:test (Node 20) keeps an async hook enabled for the whole run: it maps every async resource, each promise
 * included, to the test that created it, through an `init` and a `destroy` callback. It needs that map for two things:
 * to find the parent of a test or suite declared in an async context (a file's `describe` while a group imports it),
 * and to name the test that caused an uncaught exception. For the rest of the run the hook costs a group process about
 * a fifth of its CPU (a CPU profile of the Discord files: 4.8 of 18.3 s in `registerDestroyHook` and the hook).
 *
 * A group (test/setup/test-group.ts) declares all its tests while it imports its files, so it turns the hook off once
 * every file's suite is built. What changes: an uncaught exception or unhandled rejection during a test no longer
 * fails that test by name; node:test reports it as a diagnostic ("A resource generated asynchronous activity after
 * the test ended ...", with the error) and the process exits 1, so the run still fails. Files in a process of their
 * own keep the hook. SANDPIPER_TEST_ASYNC_ATTRIBUTION=1 keeps it in groups too, to find which test threw.
 *
 * The hook is found by its `init` callback mentioning the harness's `testResources` map; on a Node whose harness
 * differs nothing is found and nothing changes (slower, never wrong).
 */
import { createHook } from 'node:async_hooks';

interface Hook {
  enable(): Hook;
  disable(): Hook;
}

let harnessHook: Hook | undefined;
const prototype = Object.getPrototypeOf(createHook({})) as Hook;
const enable = prototype.enable;

function isHarnessHook(hook: Hook): boolean {
  return Object.getOwnPropertySymbols(hook).some((symbol) => {
    const value = (hook as unknown as Record<symbol, unknown>)[symbol];
    return typeof value === 'function' && String(value).includes('testResources');
  });
}

// Loaded first into every test process (`--import`, scripts/run-tests.mjs), before anything declares a test or hook
// (open-handles.ts declares one): it watches for the harness enabling its hook and keeps a reference to it.
function remember(hook: Hook): void {
  if (harnessHook !== undefined || !isHarnessHook(hook)) return;
  harnessHook = hook;
  prototype.enable = enable;
}

if (process.env['SANDPIPER_TEST_ASYNC_ATTRIBUTION'] !== '1') {
  prototype.enable = function (this: Hook): Hook {
    remember(this);
    return enable.call(this);
  };
}

/** Turns the harness's hook off (every test of the process is declared). */
export function releaseHarnessHook(): void {
  prototype.enable = enable;
  harnessHook?.disable();
}
