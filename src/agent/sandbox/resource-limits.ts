/** Resource limits of a contained process, applied by `prlimit` just before the command runs. */

export interface ResourceLimits {
  /** CPU seconds (RLIMIT_CPU); the process gets SIGXCPU, then SIGKILL. */
  cpuSeconds: number;
  /** Address space in bytes (RLIMIT_AS). */
  memoryBytes: number;
  /** Processes and threads of the user (RLIMIT_NPROC); not enforced by the kernel for uid 0. */
  processes: number;
  /** Largest file a process may write, in bytes (RLIMIT_FSIZE). */
  fileSizeBytes: number;
}

export const DEFAULT_LIMITS: ResourceLimits = {
  cpuSeconds: 120,
  memoryBytes: 4096 * 1024 * 1024,
  processes: 256,
  fileSizeBytes: 1024 * 1024 * 1024,
};

/**
 * `prlimit` arguments that wrap `command args` (prlimit sets the limits on itself, then execs the command).
 * The process count is per user: only inside a sandbox's own user namespace does it count the tool's processes
 * alone, so outside one (`withProcesses` false) it is left out rather than counting the gateway user's others.
 */
export function prlimitArgs(limits: ResourceLimits, withProcesses: boolean): string[] {
  return [
    `--cpu=${Math.max(1, Math.ceil(limits.cpuSeconds))}`,
    `--as=${Math.floor(limits.memoryBytes)}`,
    ...(withProcesses ? [`--nproc=${Math.floor(limits.processes)}`] : []),
    `--fsize=${Math.floor(limits.fileSizeBytes)}`,
    '--core=0',
  ];
}
