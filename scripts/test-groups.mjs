// Plans which test files share a process (scripts/run-tests.mjs). Loading the shared modules (discord.js, bolt, the
// SDKs, knex, the fakes) costs a real-client file about a second of CPU, more than most of its tests: files that run
// in-process share a process in groups (test/setup/test-group.ts runs each as a suite of its own, checked and timed
// as if alone). Files that run the bin or kill processes (the process layer of docs/design/testing.md), and any file
// whose first lines say `test-runner: own process`, keep a process of their own.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const PROCESS_LAYER =
  /^test\/integration\/(crash|cluster|signals|cli|instance-lock|package-install|console\.browser)[.-]/;
const OWN_MARK = /test-runner: own process/;
/** A group's planned wall time: long enough to share the loading, short enough to keep the cores' queue even. */
const GROUP_MS = Number(process.env.SANDPIPER_TEST_GROUP_MS ?? 75_000);

/** True when the source file must run in a process of its own. */
function ownProcess(root, source) {
  if (PROCESS_LAYER.test(source)) return true;
  const head = readFileSync(path.join(root, source), 'utf8').slice(0, 2000);
  return OWN_MARK.test(head);
}

/**
 * Splits `sources` (heaviest first, weighed by `weight(source)` in ms) into files run alone and groups: the grouped
 * files are dealt heaviest first into the group with the least planned time, with as many groups as the planned time
 * needs at GROUP_MS each; a file heavier than that is alone in its group.
 */
export function planGroups(root, sources, weight) {
  const alone = [];
  const shared = [];
  for (const source of sources) (ownProcess(root, source) ? alone : shared).push(source);
  const total = shared.reduce((sum, source) => sum + weight(source), 0);
  const count = Math.min(shared.length, Math.max(1, Math.ceil(total / GROUP_MS)));
  const groups = Array.from({ length: count }, () => ({ files: [], ms: 0 }));
  for (const source of [...shared].sort((a, b) => weight(b) - weight(a))) {
    const lightest = groups.reduce((best, group) => (group.ms < best.ms ? group : best));
    lightest.files.push(source);
    lightest.ms += weight(source);
  }
  return { alone, groups: groups.filter((group) => group.files.length > 0) };
}

/**
 * Writes one group file per group under `<out>/test-groups/` and returns the runnable list, heaviest first: the
 * compiled files of the lone sources and the group files. `compiled(source)` is a source's compiled path.
 */
export function writeGroups(out, plan, weight, compiled) {
  const folder = path.join(out, 'test-groups');
  mkdirSync(folder, { recursive: true });
  const helper = pathToFileURL(path.join(out, 'test', 'setup', 'test-group.js')).href;
  const runnable = plan.alone.map((source) => ({ file: compiled(source), ms: weight(source) }));
  plan.groups.forEach((group, index) => {
    const file = path.join(folder, `group-${String(index + 1).padStart(2, '0')}.test.js`);
    const lines = group.files.map(
      (source) =>
        `groupFile(${JSON.stringify(source)}, () => import(${JSON.stringify(pathToFileURL(compiled(source)).href)}));`,
    );
    writeFileSync(file, [`import { groupFile } from ${JSON.stringify(helper)};`, ...lines, ''].join('\n'));
    runnable.push({ file, ms: group.ms });
  });
  return runnable.sort((a, b) => b.ms - a.ms).map((entry) => entry.file);
}
