/**
 * What a multi-instance run showed, counted the way users would notice it: answers lost or posted twice, clicks that
 * got no response or more than one, approved calls that did not run exactly once, rejected calls that ran, Discord
 * shards identified twice, and the failover time. `formatReport` prints it; tests assert on the lists being empty.
 */
import type { Conversation } from './cluster-conversation.js';
import type { ClusterFakes } from './cluster-fakes.js';
import { answerText, replyAnswerText } from './cluster-model.js';

export interface KillFacts {
  victim: number;
  /** The Discord shards the victim held. */
  shards: number[];
  /** Turns of the victim waiting at a card when it was killed. */
  interrupted: number;
  /** Turns waiting at a card (all instances) when it was killed. */
  waiting: number;
  /** Kill → shards held elsewhere and every interrupted turn answered; undefined when that never happened. */
  failoverMs: number | undefined;
  /** Kill → every shard the victim held is held by another instance; undefined when that never happened. */
  shardsMs: number | undefined;
  /** Interrupted turns that showed a new card or their answer within the wait. */
  turnsAnswered: number;
}

export interface WorkloadReport {
  instances: number;
  conversations: number;
  wallMs: number;
  modelRequests: number;
  /** Answers expected (one per turn a user started). */
  answers: number;
  lost: string[];
  duplicated: string[];
  clicks: number;
  clickProblems: string[];
  toolProblems: string[];
  stuck: string[];
  /** What the first stuck conversations' threads show. */
  transcripts: string[];
  duplicateIdentifies: number;
  kill?: KillFacts;
}

interface RunFacts {
  instances: number;
  wallMs: number;
  modelRequests: number;
  kill?: KillFacts;
}

function expectedAnswers(conversation: Conversation): string[] {
  const answers = [answerText(conversation.tag)];
  if (conversation.kind === 'notify') answers.push(replyAnswerText(conversation.tag));
  return answers;
}

function clickResponses(fakes: ClusterFakes, click: Conversation['clicks'][number]): number {
  if (click.platform === 'discord') return fakes.discordResponses(click.id);
  // A Slack Reject click answers with the form; the form's submission with "Rejected." on the click's response_url.
  if (click.label === 'Reject') return fakes.slackViews(click.trigger);
  return fakes.slackResponsePosts(click.id);
}

function toolProblems(conversation: Conversation, runs: Map<string, number>): string[] {
  const problems: string[] = [];
  const own = [...runs].filter(([call]) => call.startsWith(`call_${conversation.tag}_`));
  for (const [call, count] of own) if (count > 1) problems.push(`${call} ran ${count} times`);
  if (conversation.kind === 'reject') for (const [call] of own) problems.push(`${call} ran although rejected`);
  const decided = conversation.decidedCall;
  const approved = conversation.kind === 'approve' || conversation.kind === 'always';
  if (approved && decided !== undefined && conversation.clicks.length > 0 && (runs.get(decided) ?? 0) === 0)
    problems.push(`${decided} approved but never ran`);
  return problems;
}

/** Counts the outcome of the conversations on the fakes (after a short pause, so late duplicates are counted too). */
export async function checkOutcome(
  fakes: ClusterFakes,
  conversations: Conversation[],
  facts: RunFacts,
): Promise<WorkloadReport> {
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const runs = fakes.toolRuns();
  const report: WorkloadReport = {
    ...facts,
    conversations: conversations.length,
    answers: 0,
    lost: [],
    duplicated: [],
    clicks: 0,
    clickProblems: [],
    toolProblems: [],
    stuck: [],
    transcripts: [],
    duplicateIdentifies: fakes.discord.gateway.duplicateIdentifies,
  };
  for (const conversation of conversations) {
    for (const text of expectedAnswers(conversation)) {
      report.answers += 1;
      const count = fakes.answers(text, true);
      if (count === 0) report.lost.push(text);
      if (count > 1) report.duplicated.push(`${text} ×${count}`);
    }
    for (const click of conversation.clicks) {
      report.clicks += 1;
      const responses = clickResponses(fakes, click);
      if (responses !== 1)
        report.clickProblems.push(`${click.tag} ${click.label} on ${click.platform}: ${responses} responses`);
    }
    report.toolProblems.push(...toolProblems(conversation, runs));
    if (conversation.stuck !== undefined && report.transcripts.length < 3)
      report.transcripts.push(`${conversation.tag}: ${conversation.transcript()}`);
    if (conversation.stuck !== undefined)
      report.stuck.push(
        `${conversation.tag} (${conversation.kind}, ${conversation.platform}${conversation.shard === undefined ? '' : ` shard ${conversation.shard}`}): ${conversation.stuck}`,
      );
  }
  return report;
}

const sample = (items: string[], count = 8): string =>
  items.length === 0
    ? '0'
    : `${items.length} (${items.slice(0, count).join('; ')}${items.length > count ? '; …' : ''})`;

/** The report as lines for the console. */
export function formatReport(report: WorkloadReport): string {
  const lines = [
    `${report.instances} instances, ${report.conversations} conversations, ${report.answers} answers expected, ${report.modelRequests} model requests, ${(report.wallMs / 1000).toFixed(1)} s`,
    `answers lost: ${sample(report.lost)}`,
    `answers duplicated: ${sample(report.duplicated)}`,
    `clicks: ${report.clicks}, not answered exactly once: ${sample(report.clickProblems)}`,
    `tool calls wrong: ${sample(report.toolProblems)}`,
    `conversations stuck: ${sample(report.stuck)}`,
    `Discord shards identified twice: ${report.duplicateIdentifies}`,
    ...report.transcripts.map((transcript) => `  stuck thread ${transcript}`),
  ];
  const kill = report.kill;
  if (kill) {
    const time = kill.failoverMs === undefined ? 'did not complete' : `${(kill.failoverMs / 1000).toFixed(2)} s`;
    const shards = kill.shardsMs === undefined ? 'never' : `${(kill.shardsMs / 1000).toFixed(2)} s`;
    lines.push(
      `SIGKILL of instance ${kill.victim} (shards ${kill.shards.join(', ') || 'none'}; ${kill.interrupted} of ${kill.waiting} waiting turns were its own): failover ${time}`,
    );
    lines.push(
      `  its shards held elsewhere after ${shards}; ${kill.turnsAnswered} of ${kill.interrupted} interrupted turns answered again (new card or answer)`,
    );
  }
  return lines.join('\n');
}
