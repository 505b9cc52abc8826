/** The words a restart leaves behind: in the stored history (what the model reads) and in the thread (what people see). */

/** The result of a tool call that was running (or about to run) when the gateway stopped. It is never run again. */
export const INTERRUPTED_TOOL_RESULT = 'Interrupted by a restart — may have run; not repeated.';

/** Appended to an assistant message that was still streaming when the gateway stopped. */
export const INTERRUPTED_MARKER = '[interrupted by a restart]';

/** The message a resumed turn starts with: nobody typed it, it tells the model what happened. */
export const RESUME_PROMPT =
  '[Sandpiper: the gateway restarted while you were answering. Your partial answer and any interrupted tool calls are above; ' +
  'a tool call marked "interrupted" may have run and was not repeated. Continue and answer my last message.]';
