/**
 * Loaded into every test process (`--import`, by scripts/run-tests.mjs): when the process exits, appends its wall time
 * since it started (start-up and imports included), its own CPU time and, on Linux, the CPU time of the child
 * processes it waited for (a started bin, npm, a tool; from /proc/self/stat) to `SANDPIPER_TEST_TIMES`, one JSON line
 * per process, from which the runner prints the slowest test files and the suite's CPU use. A process that runs a group
 * of files (test/setup/test-group.ts) also appends one line per file (`recordFile`), measured from the file's first
 * hook to its last.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** CPU milliseconds of the waited-for children (cutime + cstime, in clock ticks of 10 ms), or undefined off Linux. */
function childrenCpuMs(): number | undefined {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the command name may hold spaces
    return (Number(fields[13]) + Number(fields[14])) * 10; // fields 16 and 17 of proc(5), counted from the state (3)
  } catch {
    return undefined;
  }
}

/** A point in a process's life to measure a file's share from. */
export interface TimeMark {
  wallMs: number;
  cpuMs: number;
  childCpuMs: number | undefined;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

export function timeMark(): TimeMark {
  return { wallMs: performance.now(), cpuMs: cpuMs(), childCpuMs: childrenCpuMs() };
}

const target = process.env.SANDPIPER_TEST_TIMES;

/** Appends one grouped file's line: its wall and CPU time since `since`, and its outcome (0 passed, 1 failed). */
export function recordFile(file: string, since: TimeMark, code: number): void {
  if (!target) return;
  const now = timeMark();
  const children = now.childCpuMs === undefined ? undefined : now.childCpuMs - (since.childCpuMs ?? 0);
  const line = {
    file,
    kind: 'file',
    wallMs: Math.round(now.wallMs - since.wallMs),
    cpuMs: now.cpuMs - since.cpuMs,
    childCpuMs: children,
    code,
  };
  appendFileSync(target, `${JSON.stringify(line)}\n`);
}

if (target) {
  process.on('exit', (code) => {
    const line = {
      file: process.argv[1] ?? '?',
      kind: 'process',
      wallMs: Math.round(performance.now()),
      cpuMs: cpuMs(),
      childCpuMs: childrenCpuMs(),
      code,
    };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
