/**
 * The stores' side of the one write-behind engine (`GroupCommit`, src/shared/group-commit.ts): one write transaction per
 * group for the hot path's writers (turn journal, workstream state and usage, `live_state`, history appends, new
 * workstreams, approval rows, inbound claims nobody waits on): the writes handed in before a group starts (while the
 * previous one runs, or before the next microtask) run in order inside one transaction (on SQLite, one script on the
 * write connection: batch-db.ts), and each caller's promise settles only after that transaction committed. A turn's
 * dozen separate commits become two or three.
 *
 * A batch holds at most `maxWrites` writes, so a statement sent beside the batches (the inbound claim, on SQLite's
 * write connection) waits for one bounded batch at most: the next batch is sent only after the current one committed.
 * When a batch fails, nothing of it is kept (the transaction rolled back); its writes are then tried again one by one
 * in their own transactions, so a write that cannot be stored rejects its own caller and the others still land.
 * Nothing is dropped silently. ADR 0026.
 */
import type { Knex } from 'knex';
import { BatchRunner, isStatement, type BatchDb, type Statement } from './batch-db.js';
import { GroupCommit, type Schedule } from '../shared/group-commit.js';
import { mergedStatement, planStatements, rowStatement, type RowWrite } from './merged-statements.js';
import { guard } from './storage-errors.js';

/**
 * A write inside the shared transaction (or, for a one-statement write alone in its batch, on the connection
 * itself): it runs its statements through `db.run`, or hands back its one statement, and it must only touch the
 * database, since it may run twice (see above).
 */
export type TickWrite<T> = (db: BatchDb) => Promise<T> | Statement;

function execute(write: TickWrite<unknown>, db: BatchDb): Promise<unknown> {
  const out = write(db);
  return isStatement(out) ? db.run(out) : out;
}

export interface TickWriteOptions {
  /** The write is one statement: alone in a batch it needs no BEGIN/COMMIT of its own. */
  oneStatement?: boolean;
  /**
   * Keys of the rows the write touches (`ws:<id>`, `route:<type>:<id>`): a row write of the same group may run before
   * it when they share none (merged-statements.ts). Without keys the write is a barrier nothing moves across.
   */
  touches?: readonly string[];
}

interface Queued {
  write: TickWrite<unknown>;
  oneStatement: boolean;
  rowWrite?: RowWrite;
  touches?: readonly string[] | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** Writes per transaction: bounds how long a statement outside the batch waits for the connection. */
export const DEFAULT_TICK_BATCH = 64;

export class TickWriter {
  private queue: Queued[] = [];
  private readonly maxWrites: number;
  private readonly runner: BatchRunner;
  /** The one write-behind engine: one batch at a time, the writes handed in meanwhile share the next. */
  private readonly engine: GroupCommit;
  /** Writes handed in and not settled yet; `tail` settles with the last of them (batches settle in order). */
  private unsettled = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(knex: Knex, options: { maxWrites?: number; schedule?: Schedule } = {}) {
    this.runner = new BatchRunner(knex);
    this.maxWrites = Math.max(1, options.maxWrites ?? DEFAULT_TICK_BATCH);
    const source = {
      hasPending: () => this.queue.length > 0,
      commitNext: () => this.run(this.queue.splice(0, this.maxWrites)),
    };
    this.engine = new GroupCommit(source, options.schedule === undefined ? {} : { schedule: options.schedule });
  }

  /** Queues a write for the next shared transaction; resolves with its result once that transaction committed. */
  write<T>(write: TickWrite<T>, options: TickWriteOptions = {}): Promise<T> {
    return this.enqueue<T>({ write, oneStatement: options.oneStatement === true, touches: options.touches });
  }

  /**
   * Queues a one-row insert or a delete by one column's value: in a group, it shares one statement with the others of
   * its shape where `touches` allows (merged-statements.ts). Resolves once its transaction committed.
   */
  writeRow(rowWrite: RowWrite, touches: readonly string[]): Promise<void> {
    return this.enqueue<void>({
      write: (db) => rowStatement(db, rowWrite),
      oneStatement: true,
      rowWrite,
      touches,
    });
  }

  private enqueue<T>(entry: Omit<Queued, 'resolve' | 'reject'>): Promise<T> {
    const written = new Promise<T>((resolve, reject) => {
      this.queue.push({ ...entry, resolve: resolve as (value: unknown) => void, reject });
      this.engine.kick();
    });
    this.unsettled += 1;
    const done = (): void => {
      this.unsettled -= 1;
    };
    this.tail = written.then(done, done);
    return written;
  }

  /**
   * Runs `work` (a read, or a write outside the batches) once every write handed in before the call has settled, so
   * it sees them as if every statement ran in call order. At once when none is
   * pending.
   */
  after<T>(work: () => Promise<T>): Promise<T> {
    return this.unsettled === 0 ? work() : this.tail.then(work);
  }

  /** Writes queued and not yet settled (tests). */
  get pending(): number {
    return this.queue.length;
  }

  /** The barrier: resolves when every write queued before the call has settled. Never rejects (each caller has its own promise). */
  committed(): Promise<void> {
    return this.engine.committed();
  }

  /** Same as `committed` (the stores' name for it). */
  flush(): Promise<void> {
    return this.engine.committed();
  }

  /** Starts no batch from now on; writes handed in later are never committed (tests: a kill between two batches). */
  stop(): void {
    this.engine.stop();
  }

  private async run(batch: Queued[]): Promise<void> {
    const [only] = batch;
    if (batch.length === 1 && only !== undefined) return this.runAlone(only);
    let results: Map<Queued, unknown>;
    try {
      results = await this.runner.transaction((db) => runStatements(db, batch));
    } catch {
      // Rolled back as a whole: try each write on its own, so only the one that fails is reported to its caller.
      for (const entry of batch) await this.runAlone(entry);
      return;
    }
    for (const entry of batch) entry.resolve(results.get(entry));
  }

  private async runAlone(entry: Queued): Promise<void> {
    try {
      const work = (db: BatchDb): Promise<unknown> => execute(entry.write, db);
      entry.resolve(entry.oneStatement ? await this.runner.alone(work) : await this.runner.transaction(work));
    } catch (error) {
      entry.reject(error);
    }
  }
}

/** A group's writes inside its transaction, row writes of one shape merged (merged-statements.ts); their results. */
async function runStatements(db: BatchDb, batch: readonly Queued[]): Promise<Map<Queued, unknown>> {
  const results = new Map<Queued, unknown>();
  for (const statement of planStatements(batch)) {
    const [first] = statement;
    if (statement.length === 1 && first !== undefined) results.set(first, await execute(first.write, db));
    else
      await db.run(
        mergedStatement(
          db,
          statement.flatMap((entry) => entry.rowWrite ?? []),
        ),
      );
  }
  return results;
}

/** `guard` for a statement of a store whose other writes go through `writer`: it runs after the writes handed in before it. */
export function guardAfter<T>(writer: TickWriter, operation: string, body: () => Promise<T>): Promise<T> {
  return guard(operation, () => writer.after(body));
}
