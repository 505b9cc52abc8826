/** The `sandpiper chat` channel: readline I/O that prints streamed answers, tool calls and results, and asks for approvals. */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { AgentEvent, PreparedItem } from '../../agent/index.js';
import type { FormField } from '../channel-adapter.js';

/** A server's request for input (an MCP elicitation), asked field by field at the prompt. */
export interface TerminalForm {
  source: string;
  message: string;
  fields: readonly FormField[];
  /** Submits the typed values (by field id), or declines with `undefined`; resolves with problems to fix, or none. */
  answer(values: Readonly<Record<string, string>> | undefined): Promise<readonly string[]>;
}

/** What the terminal needs from the agent (wired in main-chat.ts). */
export interface TerminalSession {
  /** Sends a user message to the current conversation. */
  send(text: string): Promise<void>;
  /** Receives the current conversation's events (follows `/new`). */
  onEvent(handler: (event: AgentEvent) => void): void;
  resolveApproval(approvalId: string, decision: { approved: boolean; always: boolean; feedback: string | null }): Promise<void>;
  /** Starts a fresh conversation. */
  newConversation(): Promise<void>;
  /** Printable lines of the current conversation's history. */
  history(): Promise<string[]>;
  /** Receives input requests (MCP elicitations) while a turn runs. */
  onForm?(handler: (form: TerminalForm) => void): void;
}

type QueueItem = AgentEvent | { type: 'form'; form: TerminalForm };

const FORM_ATTEMPTS = 3;

export interface TerminalChatOptions {
  input: Readable;
  output: Writable;
  session: TerminalSession;
}

/** Parses an approval answer: `y`, `a`/`always`, `n`, or `y, feedback`; anything else denies with the text as feedback. */
export function parseApprovalAnswer(line: string | undefined): { approved: boolean; always: boolean; feedback: string | null } {
  if (line === undefined) return { approved: false, always: false, feedback: null };
  const trimmed = line.trim();
  const split = trimmed.search(/[,\s]/);
  const word = (split === -1 ? trimmed : trimmed.slice(0, split)).toLowerCase();
  const rest = split === -1 ? '' : trimmed.slice(split + 1).trim();
  const feedback = rest === '' ? null : rest;
  if (word === 'y' || word === 'yes') return { approved: true, always: false, feedback };
  if (word === 'a' || word === 'always') return { approved: true, always: true, feedback };
  if (word === 'n' || word === 'no' || trimmed === '') return { approved: false, always: false, feedback };
  return { approved: false, always: false, feedback: trimmed };
}

function describeItems(items: readonly PreparedItem[]): string {
  return items.map((item) => `${item.header}${item.preview ? `\n${indent(item.preview, 6)}` : ''}`).join('\n');
}

function indent(text: string, max: number): string {
  const lines = text.split('\n');
  const shown = lines.slice(0, max).map((line) => `    ${line}`);
  if (lines.length > max) shown.push(`    … (${lines.length - max} more lines)`);
  return shown.join('\n');
}

/** A small async queue of events so the read loop can wait for the next one. */
class EventQueue {
  private readonly items: QueueItem[] = [];
  private waiter: ((event: QueueItem) => void) | undefined;
  push(event: QueueItem): void {
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      waiter(event);
    } else this.items.push(event);
  }
  next(): Promise<QueueItem> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => (this.waiter = resolve));
  }
}

/** Runs the chat until `/quit` or end of input. */
export async function runTerminalChat(options: TerminalChatOptions): Promise<void> {
  const { output, session } = options;
  const write = (text: string): void => void output.write(text);
  const rl = createInterface({ input: options.input, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const readLine = async (prompt: string): Promise<string | undefined> => {
    write(prompt);
    const next = await lines.next();
    return next.done === true ? undefined : next.value;
  };
  const queue = new EventQueue();
  session.onEvent((event) => queue.push(event));
  session.onForm?.((form) => queue.push({ type: 'form', form }));
  write('sandpiper chat — /new starts over, /history shows the conversation, /quit leaves.\n');
  try {
    for (;;) {
      const line = await readLine('> ');
      if (line === undefined) break;
      const text = line.trim();
      if (text === '') continue;
      if (text === '/quit' || text === '/exit') break;
      if (text === '/new') {
        await session.newConversation();
        write('(new conversation)\n');
        continue;
      }
      if (text === '/history') {
        write(`${(await session.history()).join('\n')}\n`);
        continue;
      }
      await session.send(text);
      if (!(await followTurn(queue, session, write, readLine))) break;
    }
  } finally {
    rl.close();
  }
}

/** Prints one turn's events until `turn-end`; false when input ended during an approval prompt. */
async function followTurn(
  queue: EventQueue,
  session: TerminalSession,
  write: (text: string) => void,
  readLine: (prompt: string) => Promise<string | undefined>,
): Promise<boolean> {
  let inputOpen = true;
  for (;;) {
    const event = await queue.next();
    switch (event.type) {
      case 'text-delta':
        write(event.text);
        break;
      case 'model-call-end':
        write('\n');
        break;
      case 'tool-calls':
        write(`${describeItems(event.items)}\n`);
        break;
      case 'approval-request': {
        write(`${describeItems(event.items)}\n`);
        const answer = await readLine('Approve? [y/n/a(lways)/feedback] ');
        if (answer === undefined) inputOpen = false;
        await session.resolveApproval(event.approvalId, parseApprovalAnswer(answer));
        break;
      }
      case 'form':
        if (!(await askForm(event.form, write, readLine))) inputOpen = false;
        break;
      case 'tool-result':
        write(`${event.isError ? '✗' : '✓'} ${event.name}\n${indent(event.output.trimEnd(), 8)}\n`);
        break;
      case 'error':
        write(`error: ${event.message}\n`);
        break;
      case 'turn-end':
        if (event.reason === 'cancelled') write('(cancelled)\n');
        return inputOpen;
      default:
        break;
    }
  }
}

/** Asks a form's fields one by one; an empty first answer or `n` at the confirm declines. False when input ended. */
async function askForm(form: TerminalForm, write: (text: string) => void, readLine: (prompt: string) => Promise<string | undefined>): Promise<boolean> {
  write(`${form.source} asks: ${form.message}\n`);
  const go = await readLine('Answer? [y/n] ');
  if (go === undefined || !/^y(es)?$/i.test(go.trim())) {
    await form.answer(undefined);
    return go !== undefined;
  }
  for (let attempt = 1; attempt <= FORM_ATTEMPTS; attempt += 1) {
    const values: Record<string, string> = {};
    for (const field of form.fields) {
      const hint = field.choices?.length ? ` (${field.choices.join('/')})` : field.placeholder ? ` (${field.placeholder})` : '';
      const line = await readLine(`${field.label}${field.required ? '' : ' [optional]'}${hint}: `);
      if (line === undefined) {
        await form.answer(undefined);
        return false;
      }
      values[field.id] = line;
    }
    const problems = await form.answer(values);
    if (problems.length === 0) return true;
    write(`${problems.map((problem) => `  ${problem}`).join('\n')}\n`);
  }
  await form.answer(undefined);
  write('(declined)\n');
  return true;
}
