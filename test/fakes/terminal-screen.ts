/**
 * A person at `sandpiper chat`, for tests: the terminal adapter's real input and output streams, and the screen as the
 * person reads it, line by line. Typed lines are echoed as a terminal echoes them (after a waiting prompt's question),
 * so a line is either the bot's or the person's. Every change is announced (`until`): tests wait on it, not on time.
 */
import { PassThrough, Writable } from 'node:stream';
import type { PlatformUser } from '../../src/channels/channel-adapter.js';
import { Arrivals } from './arrivals.js';
import { person } from './recording-adapter.js';

/** One line on the screen: printed by the bot, or typed by the person (with the question it answered, if any). */
export interface ScreenLine {
  by: 'bot' | 'person';
  text: string;
}

export class TerminalScreen {
  readonly lines: ScreenLine[] = [];
  /** What the terminal writes (one stream for the harness's life: the screen survives a restart). */
  readonly output: Writable;
  /** What the person types into (a new one per adapter: `session()`). */
  input = new PassThrough();
  /** The bot's text after the last line break (a question waiting for an answer, a streamed line not yet ended). */
  private partial = '';
  private readonly changes = new Arrivals<number>();

  constructor() {
    this.output = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.printed(chunk.toString('utf8'));
        done();
      },
    });
  }

  /** A fresh input stream for a new adapter (the old one ends). */
  session(): PassThrough {
    this.input.end();
    this.input = new PassThrough();
    return this.input;
  }

  /** The person types `text` and Enter; resolves nothing: the line goes to the adapter's input. Returns its line index. */
  type(text: string): number {
    this.lines.push({ by: 'person', text: `${this.partial}${text}` });
    this.partial = '';
    this.input.write(`${text}\n`);
    this.changes.record(this.lines.length);
    return this.lines.length - 1;
  }

  /** The bot's complete lines from line `from` on. */
  botLines(from = 0): string[] {
    return this.lines.slice(from).flatMap((line) => (line.by === 'bot' ? [line.text] : []));
  }

  /** The bot's text not yet ended by a line break (a waiting question). */
  get pending(): string {
    return this.partial;
  }

  /** Resolves with `probe`'s first truthy value, checked now and after each change of the screen. */
  until<T>(probe: () => T | undefined | null | false, what: string, timeoutMs = 15_000): Promise<T> {
    return this.changes.until(probe, `terminal: ${what}`, timeoutMs);
  }

  user(id: string, name: string): PlatformUser {
    return person(id, name);
  }

  close(): Promise<void> {
    this.input.end();
    return Promise.resolve();
  }

  private printed(text: string): void {
    const parts = `${this.partial}${text}`.split('\n');
    this.partial = parts.pop() ?? '';
    for (const part of parts) this.lines.push({ by: 'bot', text: part });
    this.changes.record(this.lines.length);
  }
}
