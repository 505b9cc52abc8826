/**
 * Loaded into every test process (`--import`, by scripts/run-tests.mjs): when the process exits, appends the file's
 * wall time since the process started (start-up and imports included), its own CPU time and, on Linux, the CPU time of
 * the child processes it waited for (a started bin, npm, a tool; from /proc/self/stat) to `SANDPIPER_TEST_TIMES`, one
 * JSON line per file, from which the runner prints the slowest test files and the suite's CPU use.
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

const target = process.env.SANDPIPER_TEST_TIMES;
if (target) {
  process.on('exit', (code) => {
    const { user, system } = process.cpuUsage();
    const line = {
      file: process.argv[1] ?? '?',
      wallMs: Math.round(performance.now()),
      cpuMs: Math.round((user + system) / 1000),
      childCpuMs: childrenCpuMs(),
      code,
    };
    appendFileSync(target, `${JSON.stringify(line)}\n`);
  });
}
