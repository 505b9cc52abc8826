/**
 * The shapes the database admin commands share, so each command states only what is its own:
 * - `listCommand`: `… list` takes no arguments, reads rows with `withStores` and prints them as a table, or
 *   `{<key>: rows}` with --json;
 * - `recordCommand`: a change to one record named by its arguments (add, remove, revoke, delete, …), made with
 *   `withAuditedStores` and confirmed with one line, or `{<key>: record}` with --json (`printRecord`);
 * - `rekeyCommand`: re-encryption after a key rotation; `optionalPositional`: a command's one optional argument;
 * - `found`: a record the command looked up itself, or the NOT_FOUND (exit 1) that names what is missing;
 * - under them `withStores` / `withAuditedStores` (the database for one command) and `requirePositionals`.
 * Flags and arguments are parsed before the database is opened, so bad input never touches it (exit 2).
 */
import { audited, type AuditedChange } from '../gateway/admin/admin-audit.js';
import { GatewayError, UsageError } from '../shared/errors.js';
import type { Stores } from '../storage/index.js';
import { cliActor, writeLine, type CliCommand, type CliContext } from './cli-context.js';
import { JSON_OPTION, printJson, printList, wantsJson, type TableSpec } from './cli-output.js';
import { openAdminStorage } from './open-database.js';

type StoreWork<T> = (stores: Stores) => Promise<T>;

/** Loads the configuration, opens (and migrates) the database for `work`, and closes it again. */
export async function withStores<T>(context: CliContext, work: StoreWork<T>): Promise<T> {
  const storage = await openAdminStorage(context);
  try {
    return await work(storage.stores);
  } finally {
    await storage.close();
  }
}

/** `withStores` for a change: it is written to the admin audit (`sandpiper audit`) as made by `cli:<OS user>`. */
export function withAuditedStores<T>(
  context: CliContext,
  change: Omit<AuditedChange, 'actor'>,
  work: StoreWork<T>,
): Promise<T> {
  return withStores(context, (stores) =>
    audited({ store: stores.adminAudit }, { ...change, actor: cliActor() }, () => work(stores)),
  );
}

/** Exactly `count` arguments, none empty (trimmed); anything else is a usage error naming `usage`. */
export function requirePositionals(context: CliContext, count: number, usage: string): string[] {
  const values = context.positionals.slice(0, count);
  if (values.length < count || values.some((value) => value.trim() === '')) throw new UsageError(`usage: ${usage}`);
  if (context.positionals.length > count)
    throw new UsageError(`unexpected argument "${context.positionals[count]}"; usage: ${usage}`);
  return values.map((value) => value.trim());
}

interface CommandText {
  name: string;
  usage: string;
  summary: string;
  /** The command's flags; `--json` alone when not given. */
  options?: CliCommand['options'];
}

export interface ListCommandSpec<T> extends CommandText {
  /** The key of the rows in the JSON output. */
  key: string;
  /** Parses the flags and returns the read. */
  read(context: CliContext): StoreWork<readonly T[]>;
  table: TableSpec<T>;
}

/** A `… list` command: no arguments, the rows as a table or as JSON. */
export function listCommand<T>(spec: ListCommandSpec<T>): CliCommand {
  return {
    ...commandText(spec),
    async run(context) {
      requirePositionals(context, 0, spec.usage);
      const read = spec.read(context);
      printList(context, spec.key, await withStores(context, read), spec.table);
      return 0;
    },
  };
}

/** How a changed record is shown: `{<key>: record}` with --json, else `line(record)` (and `hint` on stderr). */
export interface Confirmation<T> {
  key: string;
  line(record: T): string;
  hint?: string;
}

export function printRecord<T>(context: CliContext, confirmation: Confirmation<T>, record: T): void {
  if (wantsJson(context)) {
    printJson(context, { [confirmation.key]: record });
    return;
  }
  writeLine(context.io.stdout, confirmation.line(record));
  if (confirmation.hint !== undefined) writeLine(context.io.stderr, confirmation.hint);
}

/** One audited change: what the audit records, and the work on the stores. */
export interface RecordChange<T> {
  audit: Omit<AuditedChange, 'actor'>;
  apply: StoreWork<T>;
}

export interface RecordCommandSpec<T> extends CommandText {
  /** How many arguments the command takes (all required, none more). */
  arguments: number;
  /** Parses the arguments and flags into the change. */
  change(args: string[], context: CliContext): RecordChange<T> | Promise<RecordChange<T>>;
  confirm: Confirmation<T>;
}

/** A command that changes one record and confirms it. */
export function recordCommand<T>(spec: RecordCommandSpec<T>): CliCommand {
  return {
    ...commandText(spec),
    async run(context) {
      const args = requirePositionals(context, spec.arguments, spec.usage);
      const change = await spec.change(args, context);
      printRecord(context, spec.confirm, await withAuditedStores(context, change.audit, change.apply));
      return 0;
    },
  };
}

/** A `… rekey` after a key rotation: re-encrypts what older keys sealed (audited) and says how many. */
export interface RekeyCommandSpec extends CommandText {
  action: string;
  /** What is re-encrypted, singular (`token`). */
  noun: string;
  /** The setting that may be emptied afterwards. */
  previousKey: string;
  /** Reads the keys from the configuration and returns the re-encryption, which resolves how many it rewrote. */
  rekey(context: CliContext): StoreWork<number>;
}

export function rekeyCommand(spec: RekeyCommandSpec): CliCommand {
  return {
    ...commandText(spec),
    async run(context) {
      requirePositionals(context, 0, spec.usage);
      const count = await withAuditedStores(context, { action: spec.action }, spec.rekey(context));
      writeLine(
        context.io.stdout,
        `re-encrypted ${count} ${spec.noun}${count === 1 ? '' : 's'}; ${spec.previousKey} can now be emptied`,
      );
      return 0;
    },
  };
}

/** A command's one optional argument (trimmed; undefined when absent or empty); a second one is a usage error. */
export function optionalPositional(context: CliContext, usage: string): string | undefined {
  if (context.positionals.length > 1)
    throw new UsageError(`unexpected argument "${context.positionals[1]}"; usage: ${usage}`);
  return context.positionals[0]?.trim() || undefined;
}

/** `value` when it is there; else NOT_FOUND with `missing` (the admin operations word their own the same way). */
export function found<T>(value: T | undefined | null | false, missing: string): T {
  if (value === undefined || value === null || value === false) throw new GatewayError('NOT_FOUND', missing);
  return value;
}

function commandText(spec: CommandText): Pick<CliCommand, 'name' | 'usage' | 'summary' | 'options'> {
  return { name: spec.name, usage: spec.usage, summary: spec.summary, options: spec.options ?? JSON_OPTION };
}
