/**
 * Counts the SQL statements and commits of one Discord turn (a new thread, then a follow-up in it) through the
 * in-process gateway on the fakes, after a warm-up: the database work a turn costs, without timing noise. A commit is
 * a COMMIT or a statement outside a transaction. ADR 0026.
 *
 *   node --import tsx bench/statements-per-turn.ts [--turns=5] [--list]
 */
import { DiscordHarness } from '../test/fakes/fake-discord-harness.js';
import { arg } from './support/bench-run.js';

const turns = Number(arg('turns', '5'));
const list = process.argv.includes('--list');
const SETTLE_MS = 400;

interface Count {
  statements: number;
  commits: number;
}

function count(sqls: readonly string[]): Count {
  let commits = 0;
  let open = false;
  for (const sql of sqls) {
    if (/^begin/i.test(sql)) open = true;
    else if (/^commit/i.test(sql)) {
      open = false;
      commits++;
    } else if (!open) commits++;
  }
  return { statements: sqls.length, commits };
}

const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
const h = await DiscordHarness.start();
const { user } = await h.linkedUser('400000000000000077', 'counter');
const sqls: string[] = [];
h.db.knex.on('query', (query: { sql: string }) => sqls.push(query.sql));
const answered = (threadId: string, n: number) => () =>
  h.textMessages(threadId).filter((m) => m.content.endsWith('done')).length >= n;
const rows: Array<{ newThread: Count; followUp: Count }> = [];
for (let i = 0; i <= turns; i++) {
  h.llm.enqueue({ text: [`answer ${i} `, 'more words ', 'done'] });
  await settle();
  sqls.length = 0;
  const { threadId } = await h.mention(user, `question ${i}`);
  await h.fake.waitFor(answered(threadId, 1), 15_000, 'the answer');
  await settle();
  const newThread = sqls.splice(0);
  h.llm.enqueue({ text: [`follow ${i} `, 'more words ', 'done'] });
  h.fake.state.injectMessage(threadId, user, `follow-up ${i}`);
  await h.fake.waitFor(answered(threadId, 2), 15_000, 'the second answer');
  await settle();
  const followUp = sqls.splice(0);
  // The first round warms the caches (linked user, tool schemas); it is not counted.
  if (i > 0) rows.push({ newThread: count(newThread), followUp: count(followUp) });
  if (list && i === turns)
    console.log(`new thread:\n  ${newThread.join('\n  ')}\nfollow-up:\n  ${followUp.join('\n  ')}`);
}
await h.close();
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
console.log(`statements per turn, median of ${rows.length} (commits = COMMITs + statements outside a transaction)`);
console.log(
  `new thread: ${median(rows.map((r) => r.newThread.statements))} statements, ${median(rows.map((r) => r.newThread.commits))} commits`,
);
console.log(
  `follow-up:  ${median(rows.map((r) => r.followUp.statements))} statements, ${median(rows.map((r) => r.followUp.commits))} commits`,
);
process.exit(0);
