/** Decides after each poll whether a watch fires: its `stop_on` condition, or (without one) a change of output. */
import { safeJsonParse } from './watch-json.js';
import { evaluateCondition, type EvaluateOptions } from './stop-on-eval.js';
import { parseCondition } from './stop-on-parse.js';
import { truthy, type PyValue } from './stop-on-values.js';

export interface PollFacts {
  output: string;
  exitCode: number;
  /** The previous poll's stored output; null on the first poll. */
  prevOutput: string | null;
}

export interface ConditionOutcome {
  fired: boolean;
  reason: string;
  /** The condition could not be evaluated: the runner treats this as final (reported, not polled to the limit). */
  isError: boolean;
}

/** Checks a condition at creation time; the error is phrased for the model. */
export function validateStopOn(stopOn: string): string | undefined {
  const parsed = parseCondition(stopOn);
  return parsed.ok ? undefined : parsed.error;
}

export function checkStopCondition(
  stopOn: string | null,
  facts: PollFacts,
  options: EvaluateOptions = {},
): ConditionOutcome {
  const changed = facts.prevOutput !== null && facts.output !== facts.prevOutput;
  if (stopOn === null || stopOn.trim() === '') {
    return changed
      ? { fired: true, reason: 'output changed', isError: false }
      : { fired: false, reason: '', isError: false };
  }
  const parsed = parseCondition(stopOn);
  if (!parsed.ok) return { fired: false, reason: `condition error: ${parsed.error}`, isError: true };
  const data: PyValue = safeJsonParse(facts.output);
  const result = evaluateCondition(
    parsed.value,
    { output: facts.output, data, exit_code: facts.exitCode, prev_output: facts.prevOutput, changed },
    options,
  );
  if (!result.ok) return { fired: false, reason: `condition error: ${result.error}`, isError: true };
  return truthy(result.value)
    ? { fired: true, reason: `condition met: ${stopOn.trim()}`, isError: false }
    : { fired: false, reason: '', isError: false };
}
