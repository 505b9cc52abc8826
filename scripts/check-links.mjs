#!/usr/bin/env node
// Checks the references in the repository's docs and source (run by `npm run lint`):
// - every relative Markdown link in a .md file points at a file or folder that exists;
// - every `docs/….md` path written in docs or source exists;
// - every ADR number (`ADR 0013`, `ADRs 0020 and 0024`) names a file in docs/decisions/, and the ADR index of
//   docs/architecture.md links every file there;
// - nothing cites a document outside the repository (the design notes it was built from: `reference §…`,
//   `reference/….md`, STYLE.md, TESTING.md, the upper-case ARCHITECTURE.md): say it here, or link docs/.
// Exits 1 listing every problem as file:line.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CHECKED = /\.(md|ts|js|mjs|cjs|json|toml|yaml|yml|sh)$|^\.ci\/run$/;
const OUTSIDE = [
  [/\breference §|\breference\/[\w-]+\.md/, 'cites the reference notes outside the repository'],
  [
    /(?<![\w/.-])(STYLE|TESTING|ARCHITECTURE)\.md\b/,
    'cites a design note outside the repository (the repository has docs/architecture.md)',
  ],
  [/\/work\/shared\b/, 'points at a folder outside the repository'],
];

const adrs = new Set(
  readdirSync(path.join(root, 'docs', 'decisions'))
    .map((name) => name.slice(0, 4))
    .filter((prefix) => /^\d{4}$/.test(prefix)),
);

function trackedFiles() {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  return listed.stdout
    .split('\n')
    .filter(
      (file) =>
        CHECKED.test(file) &&
        !file.startsWith('test/fixtures/') &&
        file !== 'package-lock.json' &&
        file !== 'scripts/check-links.mjs',
    )
    .filter((file) => existsSync(path.join(root, file)));
}

/** Problems of one line of `file`. */
function checkLine(file, line) {
  const problems = [];
  for (const [pattern, why] of OUTSIDE) if (pattern.test(line)) problems.push(why);
  for (const match of line.matchAll(/\bADRs?((?:[\s,]+(?:and\s+|or\s+)?\d{4})+)/g)) {
    for (const number of match[1].match(/\d{4}/g) ?? [])
      if (!adrs.has(number)) problems.push(`ADR ${number} is not in docs/decisions/`);
  }
  for (const match of line.matchAll(/(?<![\w/.-])(docs\/[\w./-]+\.md)/g)) {
    if (!existsSync(path.join(root, match[1]))) problems.push(`${match[1]} does not exist`);
  }
  if (file.endsWith('.md')) {
    for (const match of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const relative = decodeURIComponent(target.split('#')[0] ?? '');
      const resolved = relative.startsWith('/')
        ? path.join(root, relative)
        : path.resolve(root, path.dirname(file), relative);
      if (!resolved.startsWith(root)) problems.push(`link ${target} leaves the repository`);
      else if (!existsSync(resolved)) problems.push(`link ${target} points at nothing`);
    }
  }
  return problems;
}

const problems = [];
for (const file of trackedFiles()) {
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  lines.forEach((line, index) => {
    for (const problem of checkLine(file, line)) problems.push(`${file}:${index + 1}: ${problem}`);
  });
}
// The ADR index of docs/architecture.md lists every decision record.
const architecture = readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');
for (const name of readdirSync(path.join(root, 'docs', 'decisions')).filter((file) => /^\d{4}-.*\.md$/.test(file))) {
  if (!architecture.includes(`(decisions/${name})`))
    problems.push(`docs/architecture.md: the ADR index does not link decisions/${name}`);
}
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n\n${problems.length} broken or outside references\n`);
  process.exit(1);
}
console.log('links and references: all inside the repository and present');
