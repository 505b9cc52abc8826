/** Python-like values for `stop_on` conditions: truthiness, equality, ordering, containment, indexing, display, limits. */

/** A builtin function as a value (so `isinstance(x, str)` can name a type). */
export class Builtin {
  constructor(readonly name: string) {}
}

/** JSON data plus builtins. Dicts are plain objects from JSON.parse and are read through own keys only. */
export type PyValue = null | boolean | number | string | PyValue[] | PyDict | Builtin;
export interface PyDict {
  [key: string]: PyValue;
}

/** Longest string or list a condition may build (a `"a" * 10**9` is refused, not allocated). */
export const MAX_BUILT_LENGTH = 1_000_000;

/** An error the condition's author caused: reported as `condition error: …`. */
export class ConditionError extends Error {}

export function fail(message: string): never {
  throw new ConditionError(message);
}

/** Work and wall-clock limit of one evaluation. */
export class Budget {
  private remaining: number;
  private readonly deadline: number;

  constructor(maxSteps: number, timeLimitMs: number) {
    this.remaining = maxSteps;
    this.deadline = performance.now() + timeLimitMs;
  }

  /** Counts `units` of work; throws once the step or time limit is exceeded. */
  charge(units = 1): void {
    this.remaining -= units;
    if (this.remaining < 0) fail('the condition does too much work (step limit exceeded)');
    if (performance.now() > this.deadline) fail('the condition took too long (time limit exceeded)');
  }
}

export function isDict(value: PyValue): value is PyDict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Builtin);
}

export function typeName(value: PyValue): string {
  if (value === null) return 'NoneType';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'string') return 'str';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Builtin) return 'builtin_function_or_method';
  return 'dict';
}

export function truthy(value: PyValue): boolean {
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof Builtin) return true;
  return Object.keys(value).length > 0;
}

/** Numbers and booleans take part in arithmetic (Python's bool is an int). */
export function asNumber(value: PyValue): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

/** Own property lookup only: `__proto__`, `constructor` and friends are just missing keys. */
export function dictGet(dict: PyDict, key: PyValue): PyValue | undefined {
  if (typeof key !== 'string') return undefined;
  return Object.hasOwn(dict, key) ? (dict[key] as PyValue) : undefined;
}

export function pyEquals(a: PyValue, b: PyValue, budget: Budget): boolean {
  budget.charge();
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return na === nb;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => pyEquals(item, b[index] as PyValue, budget));
  if (isDict(a) && isDict(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && pyEquals(a[key] as PyValue, b[key] as PyValue, budget))
    );
  }
  return a === b;
}

/** Python ordering: numbers with numbers, strings with strings, lists element-wise; anything else is a TypeError. */
export function pyCompare(a: PyValue, b: PyValue, operator: string, budget: Budget): number {
  budget.charge();
  const na = asNumber(a);
  const nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.min(a.length, b.length); index++) {
      const left = a[index] as PyValue;
      const right = b[index] as PyValue;
      if (!pyEquals(left, right, budget)) return pyCompare(left, right, operator, budget);
    }
    return a.length - b.length;
  }
  fail(`'${operator}' not supported between '${typeName(a)}' and '${typeName(b)}'`);
}

export function pyContains(container: PyValue, item: PyValue, budget: Budget): boolean {
  if (typeof container === 'string') {
    if (typeof item !== 'string') fail(`'in <string>' requires a string on the left, not '${typeName(item)}'`);
    budget.charge(Math.ceil(container.length / 1024));
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((entry) => pyEquals(entry, item, budget));
  if (isDict(container)) return dictGet(container, item) !== undefined;
  fail(`argument of type '${typeName(container)}' is not iterable`);
}

function index(length: number, key: PyValue, what: string): number {
  const position = asNumber(key);
  if (position === undefined || !Number.isInteger(position) || typeof key === 'boolean')
    fail(`${what} indices must be integers, not '${typeName(key)}'`);
  const resolved = position < 0 ? length + position : position;
  if (resolved < 0 || resolved >= length) fail(`${what} index out of range`);
  return resolved;
}

/** `value[key]`: string and list positions (negative from the end), dict keys. */
export function pySubscript(value: PyValue, key: PyValue): PyValue {
  if (typeof value === 'string') return [...value][index([...value].length, key, 'string')] as string;
  if (Array.isArray(value)) return value[index(value.length, key, 'list')] as PyValue;
  if (isDict(value)) {
    const found = dictGet(value, key);
    if (found === undefined) fail(`key ${display(key, true)} not found`);
    return found;
  }
  fail(`'${typeName(value)}' object is not subscriptable`);
}

/** Python's `str()` (`repr` for items inside containers, and when `quoted`). */
export function display(value: PyValue, quoted = false): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number')
    return Number.isFinite(value) ? String(value) : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  if (typeof value === 'string') return quoted ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : value;
  if (value instanceof Builtin) return `<built-in function ${value.name}>`;
  if (Array.isArray(value)) return `[${value.map((item) => display(item, true)).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${display(key, true)}: ${display(item, true)}`)
    .join(', ')}}`;
}

/** Refuses strings and lists beyond MAX_BUILT_LENGTH before they are built. */
export function checkLength(length: number): void {
  if (length > MAX_BUILT_LENGTH) fail(`the result would be too large (${length} items; at most ${MAX_BUILT_LENGTH})`);
}
