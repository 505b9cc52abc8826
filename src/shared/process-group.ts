/** Process groups: a child spawned `detached` leads its own group, so one signal reaches everything it started. */

/** Signals every process of the group led by `pid`; a group that is already gone is fine. */
export function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: every process of the group has already exited, which is the goal.
  }
}
