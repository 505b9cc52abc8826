/** The builtins and methods a `stop_on` condition may call (a safe list, plus common str/dict/list methods). */
import {
  asNumber,
  Builtin,
  checkLength,
  display,
  fail,
  isDict,
  pyCompare,
  pyEquals,
  truthy,
  typeName,
  type Budget,
  type PyValue,
} from './stop-on-values.js';

type Fn = (args: PyValue[], budget: Budget) => PyValue;

/** Functions by name; `list` and `dict` exist mainly for `isinstance(data, dict)`. */
const BUILTINS: Record<string, Fn> = {
  len: ([value]) => {
    if (typeof value === 'string') return [...value].length;
    if (Array.isArray(value)) return value.length;
    if (value !== undefined && isDict(value)) return Object.keys(value).length;
    fail(`object of type '${typeName(value ?? null)}' has no len()`);
  },
  str: ([value]) => (value === undefined ? '' : display(value)),
  int: ([value]) => toInt(value ?? 0),
  float: ([value]) => toFloat(value ?? 0),
  bool: ([value]) => (value === undefined ? false : truthy(value)),
  abs: ([value]) => Math.abs(number(value, 'abs')),
  min: (args, budget) => extreme(args, budget, -1, 'min'),
  max: (args, budget) => extreme(args, budget, 1, 'max'),
  any: ([value], budget) => items(value, budget, 'any').some(truthy),
  all: ([value], budget) => items(value, budget, 'all').every(truthy),
  sorted: ([value], budget) => {
    const list = [...items(value, budget, 'sorted')];
    budget.charge(list.length * Math.max(1, Math.ceil(Math.log2(list.length + 1))));
    return list.sort((a, b) => pyCompare(a, b, '<', budget));
  },
  isinstance: ([value, type]) => {
    const types = Array.isArray(type) ? type : [type];
    if (value === undefined || !types.every((entry) => entry instanceof Builtin))
      fail('isinstance() needs a value and a type such as str, int, float, bool, list or dict');
    return types.some((entry) => matchesType(value, (entry as Builtin).name));
  },
  list: ([value], budget) => (value === undefined ? [] : [...items(value, budget, 'list')]),
  dict: ([value]) => {
    if (value === undefined) return {};
    if (isDict(value)) return { ...value };
    fail('dict() only copies a dict here');
  },
};

export const BUILTIN_NAMES: readonly string[] = Object.keys(BUILTINS);

export function builtin(name: string): Builtin {
  return new Builtin(name);
}

export function callBuiltin(name: string, args: PyValue[], budget: Budget): PyValue {
  const fn = BUILTINS[name];
  if (fn === undefined) fail(`unknown function '${name}'`);
  return fn(args, budget);
}

function matchesType(value: PyValue, type: string): boolean {
  const actual = typeName(value);
  if (type === 'int') return actual === 'int' || actual === 'bool';
  if (type === 'float') return typeof value === 'number';
  return actual === type;
}

function number(value: PyValue | undefined, what: string): number {
  const result = value === undefined ? undefined : asNumber(value);
  if (result === undefined) fail(`${what}() needs a number, not '${typeName(value ?? null)}'`);
  return result;
}

function toInt(value: PyValue): number {
  if (typeof value === 'string') {
    if (!/^\s*[+-]?\d+\s*$/.test(value)) fail(`invalid literal for int(): ${display(value.slice(0, 50), true)}`);
    return Number.parseInt(value, 10);
  }
  return Math.trunc(number(value, 'int'));
}

function toFloat(value: PyValue): number {
  if (typeof value === 'string') {
    const parsed = Number(value.trim());
    if (value.trim() === '' || Number.isNaN(parsed))
      fail(`could not convert string to float: ${display(value.slice(0, 50), true)}`);
    return parsed;
  }
  return number(value, 'float');
}

/** The elements of an iterable: list items, string characters, dict keys. */
function items(value: PyValue | undefined, budget: Budget, what: string): PyValue[] {
  if (Array.isArray(value)) {
    budget.charge(value.length);
    return value;
  }
  if (typeof value === 'string') {
    budget.charge(value.length);
    return [...value];
  }
  if (value !== undefined && isDict(value)) return Object.keys(value);
  fail(`${what}() needs a list, a string or a dict, not '${typeName(value ?? null)}'`);
}

function extreme(args: PyValue[], budget: Budget, sign: 1 | -1, what: string): PyValue {
  const candidates = args.length === 1 ? items(args[0], budget, what) : args;
  if (candidates.length === 0) fail(`${what}() of an empty sequence`);
  return candidates.reduce((best, item) =>
    pyCompare(item, best, sign > 0 ? '>' : '<', budget) * sign > 0 ? item : best,
  );
}

type Method = (receiver: PyValue, args: PyValue[], budget: Budget) => PyValue;

function text(value: PyValue | undefined, what: string): string {
  if (typeof value !== 'string') fail(`${what} needs a string argument, not '${typeName(value ?? null)}'`);
  return value;
}

function charged(budget: Budget, receiver: string): string {
  budget.charge(Math.ceil(receiver.length / 256));
  return receiver;
}

function stripChars(value: string, chars: PyValue | undefined, side: 'both' | 'left' | 'right'): string {
  const set = chars === undefined || chars === null ? undefined : new Set([...text(chars, 'strip()')]);
  const isStripped = (ch: string): boolean => (set === undefined ? /\s/.test(ch) : set.has(ch));
  const characters = [...value];
  let start = 0;
  let end = characters.length;
  if (side !== 'right') while (start < end && isStripped(characters[start] as string)) start++;
  if (side !== 'left') while (end > start && isStripped(characters[end - 1] as string)) end--;
  return characters.slice(start, end).join('');
}

function split(value: string, sep: PyValue | undefined, maxsplit: PyValue | undefined): string[] {
  const limit = maxsplit === undefined ? -1 : (asNumber(maxsplit) ?? -1);
  const parts =
    sep === undefined || sep === null
      ? value
          .trim()
          .split(/\s+/)
          .filter((part) => part !== '')
      : value.split(text(sep, 'split()'));
  if (sep !== undefined && sep !== null && text(sep, 'split()') === '') fail('split() separator must not be empty');
  if (limit < 0 || parts.length <= limit + 1) return parts;
  const joiner = sep === undefined || sep === null ? ' ' : (sep as string);
  return [...parts.slice(0, limit), parts.slice(limit).join(joiner)];
}

const STRING_METHODS: Record<string, Method> = {
  lower: (s, _a, b) => charged(b, s as string).toLowerCase(),
  upper: (s, _a, b) => charged(b, s as string).toUpperCase(),
  strip: (s, [chars], b) => stripChars(charged(b, s as string), chars, 'both'),
  lstrip: (s, [chars], b) => stripChars(charged(b, s as string), chars, 'left'),
  rstrip: (s, [chars], b) => stripChars(charged(b, s as string), chars, 'right'),
  startswith: (s, [prefix]) =>
    (Array.isArray(prefix) ? prefix : [prefix]).some((p) => (s as string).startsWith(text(p, 'startswith()'))),
  endswith: (s, [suffix]) =>
    (Array.isArray(suffix) ? suffix : [suffix]).some((p) => (s as string).endsWith(text(p, 'endswith()'))),
  split: (s, [sep, maxsplit], b) => split(charged(b, s as string), sep, maxsplit),
  splitlines: (s, _a, b) =>
    charged(b, s as string)
      .split(/\r\n|\r|\n/)
      .filter((line, i, all) => i < all.length - 1 || line !== ''),
  find: (s, [needle], b) => charged(b, s as string).indexOf(text(needle, 'find()')),
  count: (s, [needle], b) => {
    const n = text(needle, 'count()');
    return n === '' ? [...(s as string)].length + 1 : charged(b, s as string).split(n).length - 1;
  },
  replace: (s, [old, replacement], b) => {
    const source = charged(b, s as string);
    const from = text(old, 'replace()');
    const to = text(replacement, 'replace()');
    const occurrences = from === '' ? source.length + 1 : source.split(from).length - 1;
    checkLength(source.length + occurrences * Math.max(0, to.length - from.length));
    return source.replaceAll(from, to);
  },
  isdigit: (s) => /^\d+$/.test(s as string),
  join: (s, [list], b) => {
    if (!Array.isArray(list)) fail('join() needs a list of strings');
    b.charge(list.length);
    const parts = list.map((item) => text(item, 'join()'));
    checkLength(
      parts.reduce((sum, part) => sum + part.length, 0) + Math.max(0, parts.length - 1) * (s as string).length,
    );
    return parts.join(s as string);
  },
};

const DICT_METHODS: Record<string, Method> = {
  get: (d, [key, fallback]) =>
    typeof key === 'string' && Object.hasOwn(d as object, key)
      ? ((d as Record<string, PyValue>)[key] as PyValue)
      : (fallback ?? null),
  keys: (d) => Object.keys(d as object),
  values: (d) => Object.values(d as object) as PyValue[],
  items: (d) => Object.entries(d as object).map(([key, value]) => [key, value as PyValue]),
};

const LIST_METHODS: Record<string, Method> = {
  count: (l, [item], b) => (l as PyValue[]).filter((entry) => pyEquals(entry, item ?? null, b)).length,
  index: (l, [item], b) => {
    const position = (l as PyValue[]).findIndex((entry) => pyEquals(entry, item ?? null, b));
    if (position < 0) fail(`${display(item ?? null, true)} is not in list`);
    return position;
  },
};

export const METHOD_NAMES: readonly string[] = [
  ...new Set([...Object.keys(STRING_METHODS), ...Object.keys(DICT_METHODS), ...Object.keys(LIST_METHODS)]),
];

export function callMethod(receiver: PyValue, method: string, args: PyValue[], budget: Budget): PyValue {
  const table =
    typeof receiver === 'string'
      ? STRING_METHODS
      : Array.isArray(receiver)
        ? LIST_METHODS
        : isDict(receiver)
          ? DICT_METHODS
          : undefined;
  const fn = table !== undefined && Object.hasOwn(table, method) ? table[method] : undefined;
  if (fn === undefined) fail(`'${typeName(receiver)}' object has no method '${method}'`);
  return fn(receiver, args, budget);
}
