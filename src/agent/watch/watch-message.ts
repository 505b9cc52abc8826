/** The message a watch result becomes in its workstream. */
import { formatInterval } from './watch-durations.js';

export interface WatchMessageInput {
  name: string;
  command: string;
  stopOn: string | null;
  pollCount: number;
  maxPolls: number;
  /** Seconds since the watch was created. */
  elapsedSeconds: number;
  output: string;
  isFinal: boolean;
  /** Why it fired or ended (`condition met: …`, `output changed`, `max polls reached`, `condition error: …`). */
  reason: string;
}

export function formatWatchMessage(input: WatchMessageInput): string {
  const lines = [
    `[Watch "${input.name}" — poll #${input.pollCount}/${input.maxPolls}, ${formatInterval(Math.max(0, input.elapsedSeconds))} elapsed]`,
    input.stopOn === null ? '[mode: fire on output change]' : `[condition: ${input.stopOn}]`,
    '',
    `$ ${input.command}`,
    input.output,
  ];
  if (input.isFinal) lines.push('', `[${input.reason || 'max polls reached'} — watch auto-cancelled]`);
  return lines.join('\n');
}
