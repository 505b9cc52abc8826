/** Normalizes a resource URI for approval labels: percent-decode the path, resolve `.`/`..`, re-encode (Python urlsplit/normpath/quote semantics). */

interface SplitUri {
  scheme: string;
  netloc: string;
  path: string;
  query: string;
  fragment: string;
  hasNetloc: boolean;
}

function splitUri(uri: string): SplitUri {
  let rest = uri;
  let fragment = '';
  let query = '';
  const hashAt = rest.indexOf('#');
  if (hashAt !== -1) {
    fragment = rest.slice(hashAt + 1);
    rest = rest.slice(0, hashAt);
  }
  const queryAt = rest.indexOf('?');
  if (queryAt !== -1) {
    query = rest.slice(queryAt + 1);
    rest = rest.slice(0, queryAt);
  }
  let scheme = '';
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1] ?? '';
    rest = rest.slice(scheme.length + 1);
  }
  let netloc = '';
  let hasNetloc = false;
  if (rest.startsWith('//')) {
    hasNetloc = true;
    const end = rest.indexOf('/', 2);
    netloc = end === -1 ? rest.slice(2) : rest.slice(2, end);
    rest = end === -1 ? '' : rest.slice(end);
  }
  return { scheme, netloc, path: rest, query, fragment: hashAt === -1 ? '' : fragment, hasNetloc };
}

/** POSIX normpath: collapses `//`, `.` and `..` (never above root for absolute paths), drops a trailing slash. */
function normalizePath(path: string): string {
  if (path === '') return '.';
  const isAbsolute = path.startsWith('/');
  const out: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!isAbsolute) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (isAbsolute) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Python `quote(path, safe="/")`: everything but unreserved characters and `/` is percent-encoded. */
function quotePath(path: string): string {
  return encodeURIComponent(path)
    .replace(/%2F/gi, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `file:///docs/../etc/passwd` → `file:///etc/passwd`; `file:///docs/%2e%2e/etc/passwd` → `file:///etc/passwd`. */
export function normalizeResourceUri(uri: string): string {
  const parts = splitUri(uri);
  let path = parts.path;
  if (path !== '') {
    const hadLeadingSlash = path.startsWith('/');
    path = normalizePath(safeDecode(path));
    if (hadLeadingSlash && !path.startsWith('/')) path = `/${path}`;
    path = quotePath(path);
  }
  let out = parts.scheme === '' ? '' : `${parts.scheme}:`;
  if (parts.hasNetloc || parts.scheme === 'file') out += `//${parts.netloc}`;
  out += path;
  if (parts.query !== '') out += `?${parts.query}`;
  if (parts.fragment !== '') out += `#${parts.fragment}`;
  return out;
}
