/** What the user reads when a model call was given up by its timeouts (`models.<alias>.*_timeout_s`). */
import { isStreamTimeout } from '../providers/stream-watchdog.js';

function seconds(ms: unknown): string {
  return typeof ms === 'number' ? `${Math.round(ms / 100) / 10} s` : 'too long';
}

/**
 * The note for a timed-out model call, or undefined for any other error. `streamed` says whether part of the
 * answer already reached the thread (then it stays there, marked incomplete).
 */
export function timeoutNote(error: unknown, streamed: boolean): string | undefined {
  if (!isStreamTimeout(error)) return undefined;
  const limit = seconds(error.data?.['limitMs']);
  if (streamed)
    return `The model stopped sending (nothing for ${limit}), so the answer above is incomplete. Send your message again to retry.`;
  if (error.data?.['phase'] === 'first-token')
    return `The model did not respond within ${limit}, even after retrying. Please try again later.`;
  return `The model stopped responding (nothing for ${limit}), even after retrying. Please try again later.`;
}
