/** Neutralises mass and id mentions in text we echo, by inserting a zero-width space after the `@`. */

const ZWSP = '\u200b';

/** `@everyone`, `@here` and `<@id>`, `<@!id>`, `<@&id>` become inert; everything else is unchanged. */
export function escapeMentions(text: string): string {
  return text.replace(/@(everyone|here)/g, `@${ZWSP}$1`).replace(/<@([!&]?\d{5,25})>/g, `<@${ZWSP}$1>`);
}
