/**
 * A statement with its values written into its text, for a SQLite script (`Database#exec`): the driver runs a script
 * of many statements in one call to SQLite, so a write group costs one round trip to the driver's thread instead of
 * one per statement. Each round trip needs a turn of the event loop, which at 1,000 busy threads is what an answer
 * waited for (docs/design/durability.md, "Write groups").
 *
 * A value is written as the literal that stores exactly what the driver stores when it binds that value
 * (node-sqlite3's statement.cc): a number that fits in 32 bits as an integer and any other number as a real, a
 * boolean as 1 or 0, a Date as its milliseconds as a real, a Buffer as a blob, a string as text. SQLite's string
 * literal has one escape, the doubled quote; a string holding a NUL character (which would end the script's C string)
 * is written as the cast of its UTF-8 bytes. A value with no exact literal (a non-finite number, an object) throws:
 * the write group then fails as a whole and its writes are run one by one with bound values.
 */

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** The SQLite literal storing what node-sqlite3 stores when it binds `value`. */
export function sqliteLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  switch (typeof value) {
    case 'boolean':
      return value ? '1' : '0';
    case 'number':
      return numberLiteral(value);
    case 'string':
      return textLiteral(value);
    default:
      break;
  }
  if (value instanceof Date) return realLiteral(value.getTime());
  if (Buffer.isBuffer(value)) return `X'${value.toString('hex')}'`;
  throw new TypeError(`a ${typeof value} value has no SQLite literal here`);
}

function numberLiteral(value: number): string {
  if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) return String(value);
  return realLiteral(value);
}

/** A real: an integral value keeps a `.0` so that SQLite reads it as a real, as the driver binds it. */
function realLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new TypeError('a non-finite number has no SQLite literal');
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

function textLiteral(value: string): string {
  if (value.includes('\0')) return `CAST(X'${Buffer.from(value, 'utf8').toString('hex')}' AS TEXT)`;
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * `sql` with each `?` placeholder replaced by the literal of the next binding. Placeholders are looked for outside
 * quoted strings, quoted identifiers and comments; a count that does not match the bindings throws.
 */
export function withLiterals(sql: string, bindings: readonly unknown[]): string {
  let out = '';
  let next = 0;
  let i = 0;
  while (i < sql.length) {
    const end = skipQuotedOrComment(sql, i);
    if (end > i) {
      out += sql.slice(i, end);
      i = end;
      continue;
    }
    const char = sql.charAt(i);
    if (char === '?') {
      if (next >= bindings.length) throw new Error('the statement has more placeholders than values');
      out += sqliteLiteral(bindings[next]);
      next += 1;
    } else out += char;
    i += 1;
  }
  if (next !== bindings.length) throw new Error('the statement has fewer placeholders than values');
  return out;
}

const CLOSERS: Record<string, string> = { "'": "'", '"': '"', '`': '`', '[': ']' };

/** Where the quoted string, quoted identifier or comment starting at `i` ends; `i` when none starts there. */
function skipQuotedOrComment(sql: string, i: number): number {
  const char = sql.charAt(i);
  const closer = CLOSERS[char];
  if (closer !== undefined) {
    let j = i + 1;
    for (;;) {
      const found = sql.indexOf(closer, j);
      if (found < 0) return sql.length;
      // A doubled quote inside a quoted string or identifier is the quote itself.
      if (closer !== ']' && sql.charAt(found + 1) === closer) j = found + 2;
      else return found + 1;
    }
  }
  if (sql.startsWith('--', i)) {
    const found = sql.indexOf('\n', i);
    return found < 0 ? sql.length : found + 1;
  }
  if (sql.startsWith('/*', i)) {
    const found = sql.indexOf('*/', i + 2);
    return found < 0 ? sql.length : found + 2;
  }
  return i;
}
