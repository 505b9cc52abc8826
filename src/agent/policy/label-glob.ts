/** Glob matching on approval labels with fnmatch semantics: `*` spans any run (including `/` and `_`), case-sensitive. */
import picomatch from 'picomatch';

const OPTIONS = { bash: true, dot: true, nobrace: true, noextglob: true } as const;
const cache = new Map<string, (label: string) => boolean>();

/** Whether `pattern` matches the whole label. */
export function globMatches(pattern: string, label: string): boolean {
  let matcher = cache.get(pattern);
  if (matcher === undefined) {
    matcher = picomatch(pattern, OPTIONS);
    if (cache.size > 1000) cache.clear();
    cache.set(pattern, matcher);
  }
  return matcher(label);
}

/** Auto-approve entries match labels exactly, or as globs when they contain `*`. */
export function matchesAutoApprove(label: string, entries: Iterable<string>): boolean {
  for (const entry of entries) {
    if (entry === label) return true;
    if (entry.includes('*') && globMatches(entry, label)) return true;
  }
  return false;
}
