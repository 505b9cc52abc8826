/** Glob matching on approval labels with Python fnmatch semantics: `*` spans any run (including `/` and `_`), case-sensitive. */

const cache = new Map<string, RegExp>();

/** Escapes one character for use inside a RegExp character class. */
function classChar(char: string): string {
  return /[\\\]\[^-]/.test(char) ? `\\${char}` : char;
}

/**
 * The body of a `[...]` set as a RegExp class, or undefined when the set can match nothing. Ranges run
 * by code point; a reversed range (`z-a`) matches nothing, as in fnmatch.
 */
function translateSet(body: string): string | undefined {
  const negated = body.startsWith('!');
  const chars = [...(negated ? body.slice(1) : body)];
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    const end = chars[i + 2];
    if (chars[i + 1] === '-' && end !== undefined) {
      if ((char.codePointAt(0) ?? 0) <= (end.codePointAt(0) ?? 0)) out += `${classChar(char)}-${classChar(end)}`;
      i += 2;
      continue;
    }
    out += classChar(char);
  }
  if (out === '') return negated ? '[^]' : undefined;
  return negated ? `[^${out}]` : `[${out}]`;
}

/** Index of the `]` closing a set that opens at `start` (`[`), or -1; `]` right after `[` or `[!` is literal. */
function setEnd(pattern: string, start: number): number {
  let j = start + 1;
  if (pattern[j] === '!') j++;
  if (pattern[j] === ']') j++;
  while (j < pattern.length && pattern[j] !== ']') j++;
  return j < pattern.length ? j : -1;
}

/** Translates an fnmatch pattern (`*`, `?`, `[seq]`, `[!seq]`; everything else literal) to an anchored RegExp. */
export function globToRegExp(pattern: string): RegExp {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char === '*') {
      while (pattern[i + 1] === '*') i++;
      source += '[^]*';
    } else if (char === '?') {
      source += '[^]';
    } else if (char === '[' && setEnd(pattern, i) !== -1) {
      const end = setEnd(pattern, i);
      source += translateSet(pattern.slice(i + 1, end)) ?? '(?!)';
      i = end;
    } else {
      source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^(?:${source})$`, 'u');
}

/** Whether `pattern` matches the whole label. */
export function globMatches(pattern: string, label: string): boolean {
  let matcher = cache.get(pattern);
  if (matcher === undefined) {
    matcher = globToRegExp(pattern);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, matcher);
  }
  return matcher.test(label);
}

/** Auto-approve entries match labels exactly, or as globs when they contain `*`. */
export function matchesAutoApprove(label: string, entries: Iterable<string>): boolean {
  for (const entry of entries) {
    if (entry === label) return true;
    if (entry.includes('*') && globMatches(entry, label)) return true;
  }
  return false;
}
