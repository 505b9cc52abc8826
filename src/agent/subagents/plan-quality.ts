/** The plan quality gate: long enough, structured, not an echo of the goal, not a refusal. */
import { PLAN_SECTIONS } from './agent-prompts.js';

const REFUSAL_STARTS = ['i cannot', "i'm sorry", 'i am sorry', 'error:', "i can't"];
export const PLAN_WARNING = '[Warning: plan may be incomplete or poorly structured]\n\n';

/** Problems of a plan; empty when it passes. */
export function validatePlan(content: string, goal: string): string[] {
  const text = content.trim();
  const lower = text.toLowerCase();
  const issues: string[] = [];
  if (text.length < 100) issues.push(`too short (${text.length} chars, minimum 100)`);
  const found = PLAN_SECTIONS.filter((section) => lower.includes(section)).length;
  if (found < 2) issues.push(`missing plan sections (found ${found}/4, need at least 2)`);
  const trimmedGoal = goal.trim().toLowerCase();
  if (trimmedGoal !== '' && text.length < 2 * trimmedGoal.length && lower.includes(trimmedGoal))
    issues.push('plan appears to echo the goal without elaboration');
  if (REFUSAL_STARTS.some((start) => lower.startsWith(start))) issues.push('plan appears to be a refusal or error');
  return issues;
}
