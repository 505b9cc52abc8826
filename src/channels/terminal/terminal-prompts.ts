/**
 * Questions waiting for the next typed line (an approval, a form's fields): first come, first asked. A line typed while
 * one waits answers it; otherwise it is a message. The question of the prompt at the head is printed once.
 */

export interface Prompt {
  /** Printed when the prompt's turn comes. */
  question: string;
  /** Takes the typed line (undefined when input ended); may queue follow-up prompts with `first`. */
  answer(line: string | undefined): Promise<void>;
  /** The message the prompt belongs to: when it is settled elsewhere, the prompt is dropped (`drop`). */
  key?: string;
}

export class PromptQueue {
  private readonly waiting: Prompt[] = [];
  private shown: Prompt | undefined;

  constructor(private readonly write: (text: string) => void) {}

  /** Queues a prompt. */
  push(prompt: Prompt): void {
    this.waiting.push(prompt);
    this.showHead();
  }

  /** Queues prompts ahead of the others (a form's fields, asked right after its Answer). */
  first(prompts: readonly Prompt[]): void {
    this.waiting.unshift(...prompts);
    this.showHead();
  }

  /** Hands the line to the oldest prompt; false when none waits. */
  async answer(line: string): Promise<boolean> {
    const prompt = this.waiting.shift();
    if (!prompt) return false;
    await prompt.answer(line);
    this.showHead();
    return true;
  }

  /** The card `key` was settled elsewhere (a sign-in, another approver): its prompts no longer wait for a line. */
  drop(key: string): void {
    const before = this.waiting.length;
    for (let index = this.waiting.length - 1; index >= 0; index -= 1) if (this.waiting[index]?.key === key) this.waiting.splice(index, 1);
    if (this.waiting.length !== before) this.showHead();
  }

  /** Input ended: every waiting prompt gets `undefined` (approvals are refused, forms declined). */
  async endAll(): Promise<void> {
    for (let prompt = this.waiting.shift(); prompt; prompt = this.waiting.shift()) await prompt.answer(undefined);
  }

  private showHead(): void {
    const head = this.waiting[0];
    if (!head || head === this.shown) return;
    this.shown = head;
    this.write(head.question);
  }
}
