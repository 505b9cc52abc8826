/**
 * Tells when the platform links changed, for the gateway's link directory: after a link or unlink through this
 * process's user store, and (SQLite) after a commit by another process, such as the CLI's `sandpiper link` while
 * the gateway runs. `PRAGMA data_version` on SQLite's write connection (`BatchRunner.alone`) changes with every other
 * connection's commit, never with its own: other processes' and, more rarely, this process's writes outside the write
 * engine on knex's connection (one reload too many, never one too few), so the directory can be trusted between two
 * polls. ADR 0029.
 */
import type { Knex } from 'knex';
import { BatchRunner } from './batch-db.js';
import { isSqlite } from './sqlite-statements.js';

export interface ChangeFeed {
  /**
   * Calls `onChange` after a change. `ready` settles once the first poll set the baseline: what is read after it and
   * changed by another process later is reported.
   */
  watch(onChange: () => void, intervalMs: number): { ready: Promise<void>; stop: () => void };
}

/** The feed of link changes; `changed` is called by the user store after its own writes. */
export class LinkChanges implements ChangeFeed {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly runner: BatchRunner) {}

  /** The feed of a SQLite database, or undefined for PostgreSQL (several processes write there as a rule). */
  static forDatabase(knex: Knex): LinkChanges | undefined {
    return isSqlite(knex) ? new LinkChanges(new BatchRunner(knex)) : undefined;
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  watch(onChange: () => void, intervalMs: number): { ready: Promise<void>; stop: () => void } {
    this.listeners.add(onChange);
    let last: number | undefined;
    let polling = false;
    const poll = async (): Promise<void> => {
      if (polling) return;
      polling = true;
      try {
        const current = await this.dataVersion();
        if (last !== undefined && current !== last) onChange();
        last = current;
      } catch {
        // A failed poll (the database closing at shutdown, a lock) says nothing: the next one tries again.
      } finally {
        polling = false;
      }
    };
    const ready = poll();
    // Purpose: cadence (link changes are polled).
    const timer = setInterval(() => void poll(), intervalMs);
    timer.unref();
    return {
      ready,
      stop: () => {
        clearInterval(timer);
        this.listeners.delete(onChange);
      },
    };
  }

  private async dataVersion(): Promise<number> {
    const rows = await this.runner.alone((db) =>
      db.run<Array<{ data_version?: unknown }>>(db.raw('PRAGMA data_version')),
    );
    return Number(rows[0]?.data_version);
  }
}
