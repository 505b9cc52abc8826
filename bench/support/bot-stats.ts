/** What a benchmarked bot process reports to the orchestrator over IPC: its own memory and event-loop lag. */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { resetTrace, startTrace, tracePoints, type TracePoint } from './hot-path-trace.js';

export interface BotStats {
  rssMb: number;
  heapMb: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** CPU time (user + system) the bot used between `lag-start` and `stats`: the measured phases only. */
  cpuMs: number;
  pid: number;
  /** With `--trace`: the bot's HTTP requests, point by point (hot-path-trace.ts). */
  trace?: TracePoint[];
}

export type OrchestratorMessage = { type: 'lag-start' } | { type: 'stats' } | { type: 'stop' };

/** Answers `lag-start` / `stats` / `stop` from the parent; `stop` runs `onStop` then exits. */
export function serveStats(onStop: () => Promise<void>): void {
  let lag: IntervalHistogram | undefined;
  let cpuAtStart = process.cpuUsage();
  const tracing = startTrace();
  // An orchestrator that dies takes its bots with it.
  process.on('disconnect', () => process.exit(0));
  process.on('message', (message: OrchestratorMessage) => {
    if (message.type === 'lag-start') {
      lag?.disable();
      lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();
      cpuAtStart = process.cpuUsage();
      resetTrace();
    } else if (message.type === 'stats') {
      lag?.disable();
      const cpu = process.cpuUsage(cpuAtStart);
      // The heap after a full collection (the parent forks bots with --expose-gc): what the bot keeps, the same way
      // for both bots. RSS is read after it too; a collection rarely gives pages back, so RSS shows the high-water mark.
      (globalThis as { gc?: () => void }).gc?.();
      const memory = process.memoryUsage();
      const stats: BotStats = {
        rssMb: memory.rss / 2 ** 20,
        heapMb: memory.heapUsed / 2 ** 20,
        lagP99Ms: lag ? lag.percentile(99) / 1e6 : 0,
        lagMaxMs: lag ? lag.max / 1e6 : 0,
        cpuMs: (cpu.user + cpu.system) / 1000,
        pid: process.pid,
        ...(tracing ? { trace: tracePoints() } : {}),
      };
      process.send?.({ type: 'stats', stats });
    } else {
      void onStop().finally(() => process.exit(0));
    }
  });
}
