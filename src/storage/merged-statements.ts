/**
 * Several writes of one group as one statement (docs/design/durability.md, "One write engine"). Each statement of a
 * group is a round trip to the driver, and the next one starts only once the event loop ran the previous one's
 * callback: with a busy loop, a group of 64 one-row inserts waits 64 loop turns. A write that is one row of a table
 * (an insert) or the removal of rows by one column's value (a delete) declares it as a `RowWrite`, and the rows the
 * group's writes touch as keys (`ws:<id>`, `route:<type>:<id>`). Inside the group's transaction, such a write joins an
 * earlier statement of its shape when no write between them touches a key it touches: those writes touch other rows,
 * so running it earlier changes nothing they read or write, and the transaction commits all of them or none. A write
 * with no keys is a barrier nothing moves across. The rows of one statement keep their order (an INSTEAD OF trigger
 * runs once per row, in order).
 */
import type { BatchDb, Statement } from './batch-db.js';

/** A write the engine may merge with others of its shape: one row inserted, or rows deleted where `column` = `equals`. */
export type RowWrite =
  | { insertInto: string; row: Readonly<Record<string, unknown>> }
  | { deleteFrom: string; column: string; equals: string | number };

/** What the planner needs of a queued write: its row write (if any) and the keys of the rows it touches. */
export interface Plannable {
  rowWrite?: RowWrite | undefined;
  /** Undefined: the write may touch anything (a barrier). */
  touches?: readonly string[] | undefined;
}

/** Writes of one shape share a statement: the table and the columns set (or the column deleted by). */
function shapeOf(write: RowWrite): string {
  if ('insertInto' in write) return `insert ${write.insertInto} ${Object.keys(write.row).sort().join(',')}`;
  return `delete ${write.deleteFrom} ${write.column}`;
}

interface Slot<E> {
  entries: E[];
  shape: string | undefined;
  /** The keys its writes touch; undefined for a barrier. */
  touches: Set<string> | undefined;
}

function conflicts(slot: Slot<unknown>, touches: readonly string[]): boolean {
  return slot.touches === undefined || touches.some((key) => slot.touches?.has(key) === true);
}

/** The slot an entry of `shape` joins: the latest of that shape with nothing touching its keys after it. */
function joinable<E>(slots: readonly Slot<E>[], shape: string, touches: readonly string[]): Slot<E> | undefined {
  for (let index = slots.length - 1; index >= 0; index -= 1) {
    const slot = slots[index];
    if (slot === undefined) break;
    if (slot.shape === shape) return slot;
    if (conflicts(slot, touches)) return undefined;
  }
  return undefined;
}

/**
 * The group's statements, in order: each is one write, or writes of one shape run as one statement. A write joins an
 * earlier statement only across writes that touch none of its keys.
 */
export function planStatements<E extends Plannable>(entries: readonly E[]): E[][] {
  const slots: Slot<E>[] = [];
  for (const entry of entries) {
    const touches = entry.touches;
    const shape = entry.rowWrite === undefined || touches === undefined ? undefined : shapeOf(entry.rowWrite);
    const slot = shape === undefined || touches === undefined ? undefined : joinable(slots, shape, touches);
    if (slot !== undefined && touches !== undefined) {
      slot.entries.push(entry);
      for (const key of touches) slot.touches?.add(key);
      continue;
    }
    slots.push({ entries: [entry], shape, touches: touches === undefined ? undefined : new Set(touches) });
  }
  return slots.map((slot) => slot.entries);
}

/** A row write as a statement of its own. */
export function rowStatement(db: BatchDb, write: RowWrite): Statement {
  if ('insertInto' in write) return db.table(write.insertInto).insert(write.row);
  return db.table(write.deleteFrom).where(write.column, write.equals).delete();
}

/** Row writes of one shape (as `planStatements` grouped them) as one statement: a multi-row insert, or one delete. */
export function mergedStatement(db: BatchDb, writes: readonly RowWrite[]): Statement {
  const first = writes[0];
  if (first === undefined) throw new Error('mergedStatement: no writes');
  if ('insertInto' in first) {
    const rows = writes.map((write) => ('insertInto' in write ? write.row : {}));
    return db.table(first.insertInto).insert(rows);
  }
  const values = [...new Set(writes.map((write) => ('deleteFrom' in write ? write.equals : '')))];
  return db.table(first.deleteFrom).whereIn(first.column, values).delete();
}

/** The key of a workstream's rows (its row, history, turn log, waiting messages, inbound ledger rows). */
export function workstreamKey(wsId: string): string {
  return `ws:${wsId}`;
}

/** The key of a channel route's row. */
export function routeKey(channelType: string, channelId: string): string {
  return `route:${channelType}:${channelId}`;
}
