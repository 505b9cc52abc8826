/** Stop rules of the turn loop as composable predicates. */
import type { AssistantMessage } from '../messages.js';

export interface StepState {
  /** Steps (model calls followed by tools) completed so far. */
  steps: number;
  last: AssistantMessage;
}

export type StopCondition = (state: StepState) => boolean;

/** The model answered without calling tools. */
export const noToolCalls: StopCondition = (state) => (state.last.toolCalls?.length ?? 0) === 0;

/** The step budget is used up. */
export function stepCountIs(max: number): StopCondition {
  return (state) => state.steps >= max;
}

export function anyOf(...conditions: StopCondition[]): StopCondition {
  return (state) => conditions.some((condition) => condition(state));
}

/** Appended to the answer when the step budget ran out. */
export function maxStepsNote(max: number): string {
  return `\n\n(Stopped after ${max} tool steps, the limit set by agent.max_steps. Send a message to let me continue.)`;
}
