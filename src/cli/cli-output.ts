/** Output of admin commands: `--json` prints the same objects the admin HTTP endpoints answer, otherwise a plain table. */
import { writeLine, type CliContext } from './cli-context.js';

/** The `--json` option every admin command accepts. */
export const JSON_OPTION = { json: { type: 'boolean' } } as const;

export function wantsJson(context: CliContext): boolean {
  return context.flags['json'] === true;
}

export function printJson(context: CliContext, value: unknown): void {
  writeLine(context.io.stdout, JSON.stringify(value, null, 2));
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(String).join(',');
  return String(value).replace(/\s+/g, ' ');
}

/** Prints rows under a header line, columns padded to their widest cell; `empty` when there are no rows. */
export function printTable(
  context: CliContext,
  headers: readonly string[],
  rows: ReadonlyArray<readonly unknown[]>,
  empty: string,
): void {
  if (rows.length === 0) {
    writeLine(context.io.stdout, empty);
    return;
  }
  const cells = rows.map((row) => row.map(cell));
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...cells.map((row) => (row[index] ?? '').length)),
  );
  const line = (values: readonly string[]): string =>
    values
      .map((value, index) => (index === values.length - 1 ? value : value.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  writeLine(context.io.stdout, line(headers.map((header) => header.toUpperCase())));
  for (const row of cells) writeLine(context.io.stdout, line(row));
}

/** How a list prints as a table: its columns, one row per item, and the line shown when there is none. */
export interface TableSpec<T> {
  headers: readonly string[];
  row: (item: T) => readonly unknown[];
  empty: string;
}

/** A list result: JSON `{<key>: rows}` with --json, otherwise the table. */
export function printList<T>(context: CliContext, key: string, items: readonly T[], table: TableSpec<T>): void {
  if (wantsJson(context)) printJson(context, { [key]: items });
  else printTable(context, table.headers, items.map(table.row), table.empty);
}
