/**
 * Open-loop HTTP load at a fixed rate: request i is due at start + i / rate whatever happened to the requests before
 * it (no waiting for answers, unlike autocannon's paced mode, whose connections wait for their previous answer).
 * Latency is measured from the request's due time to the end of its answer, so a stall of the server (or of this
 * process) shows up in every request scheduled during it (no coordinated omission). Keep-alive sockets from a pool
 * (undici), opened on demand up to `connections`; a request finding every socket busy waits in the pool's queue,
 * and that wait counts.
 */
import { Pool } from 'undici';

export interface OpenLoopOptions {
  /** `http://host:port`. */
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  rate: number;
  seconds: number;
  connections?: number;
}

export interface OpenLoopResult {
  sent: number;
  ok: number;
  failed: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** Largest lag of this generator's own timer (ms): a tail the generator's process adds, not the server. */
  generatorLagMax: number;
}

const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

export async function openLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const pool = new Pool(options.origin, {
    connections: options.connections ?? 64,
    pipelining: 1,
    keepAliveTimeout: 30_000,
  });
  const total = Math.round(options.rate * options.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let generatorLagMax = 0;
  const pending: Promise<void>[] = [];
  const fire = (due: number): Promise<void> =>
    pool
      .request({ path: options.path, method: 'POST', headers: options.headers, body: options.body })
      .then(async (response) => {
        await response.body.dump();
        if (response.statusCode < 500) ok++;
        else failed++;
      })
      .catch(() => void failed++)
      .finally(() => latencies.push(performance.now() - due));
  const start = performance.now();
  let next = 0;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      for (; next < total && start + (next * 1000) / options.rate <= now; next++) {
        const due = start + (next * 1000) / options.rate;
        generatorLagMax = Math.max(generatorLagMax, now - due);
        pending.push(fire(due));
      }
      if (next >= total) resolve();
      else setTimeout(tick, Math.max(0, start + (next * 1000) / options.rate - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  await pool.close();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    sent: total,
    ok,
    failed,
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    p999: quantile(sorted, 0.999),
    max: sorted.at(-1) ?? Number.NaN,
    generatorLagMax,
  };
}
