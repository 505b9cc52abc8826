/**
 * Process-level shutdown triggers of the CLI: the first SIGINT/SIGTERM (or the death of the parent process) asks for a
 * graceful stop, a second signal exits at once. The parent watch covers wrappers that die on a signal without passing it
 * on (`npx`, whose `sh -c` layer is killed and leaves this process behind): the gateway then stops instead of lingering.
 */
import { writeLine } from './cli-context.js';

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
const PARENT_POLL_MS = 250;

export interface ShutdownSignals {
  /** Aborts on the first signal, or when the parent process goes away; the reason names which. */
  signal: AbortSignal;
  /** Removes the listeners and the parent watch. */
  dispose(): void;
}

export function installShutdownSignals(stderr: NodeJS.WritableStream): ShutdownSignals {
  const controller = new AbortController();
  const onSignal = (name: keyof typeof SIGNAL_EXIT_CODES): void => {
    if (!controller.signal.aborted) {
      controller.abort(name);
      return;
    }
    writeLine(stderr, `sandpiper: second ${name}, exiting without waiting for the shutdown to finish`);
    process.exit(SIGNAL_EXIT_CODES[name]);
  };
  const handlers = (Object.keys(SIGNAL_EXIT_CODES) as Array<keyof typeof SIGNAL_EXIT_CODES>).map((name) => {
    const handler = (): void => onSignal(name);
    process.on(name, handler);
    return [name, handler] as const;
  });
  const parent = process.ppid;
  // Started by init or a container runtime directly: there is no wrapper to outlive.
  // Purpose: heartbeat (a parent that exited is noticed and we stop).
  const watch =
    parent > 1
      ? setInterval(() => process.ppid !== parent && controller.abort('parent exited'), PARENT_POLL_MS)
      : undefined;
  watch?.unref();
  return {
    signal: controller.signal,
    dispose: () => {
      if (watch) clearInterval(watch);
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
