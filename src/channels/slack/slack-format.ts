/** Text for Slack: Markdown → mrkdwn, `&<>` escaping, inert mass mentions, and Slack markup → plain text inbound. */

const ZWSP = '\u200b';
const BOLD = '\u0001';
const LINK = /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g;

/** Escapes the three characters Slack treats as markup and makes `@here`/`@channel`/`@everyone` inert. */
export function escapeSlackText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(here|channel|everyone)\b/g, `@${ZWSP}$1`);
}

/**
 * Converts the model's Markdown into Slack mrkdwn: bold, italics, strike-through, headings, bullets and links are
 * translated; code blocks and inline code are kept verbatim (only escaped) and fence language tags are dropped,
 * since Slack would print them. Everything is escaped, so model text can never form a Slack mention.
 */
export function toMrkdwn(markdown: string): string {
  const out: string[] = [];
  let inFence = false;
  for (const line of markdown.split('\n')) {
    const fence = /^(\s*)```/.exec(line);
    if (fence) {
      // An opening fence loses its language tag; a closing fence (or text after it) stays as it is.
      out.push(
        inFence
          ? escapeSlackText(line)
          : `${fence[1] ?? ''}\`\`\`${escapeSlackText(line.slice(fence[0].length).replace(/^[\w+#.-]+$/, ''))}`,
      );
      inFence = !inFence && !line.slice(fence[0].length).includes('```');
      continue;
    }
    out.push(inFence ? escapeSlackText(line) : convertLine(line));
  }
  return out.join('\n');
}

/** One line outside code blocks: inline code kept verbatim, the rest converted. */
function convertLine(line: string): string {
  const heading = /^#{1,6}\s+(.+?)\s*#*$/.exec(line);
  if (heading) return `*${convertInline(heading[1] ?? '').replace(/\*/g, '')}*`;
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line);
  if (bullet) return `${bullet[1] ?? ''}• ${convertLine(bullet[2] ?? '')}`;
  return line
    .split(/(`[^`\n]+`)/)
    .map((part, index) => (index % 2 === 1 ? escapeSlackText(part) : convertInline(part)))
    .join('');
}

function convertInline(text: string): string {
  let result = '';
  let last = 0;
  for (const match of text.matchAll(LINK)) {
    result += convertEmphasis(escapeSlackText(text.slice(last, match.index)));
    const label = escapeSlackText(match[1] ?? '').replace(/\|/g, '¦');
    result += `<${(match[2] ?? '').replace(/[<>|]/g, encodeURIComponent)}|${label}>`;
    last = match.index + match[0].length;
  }
  return result + convertEmphasis(escapeSlackText(text.slice(last)));
}

function convertEmphasis(text: string): string {
  return text
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, `${BOLD}$1${BOLD}`)
    .replace(/__(?=\S)(.+?)(?<=\S)__/g, `${BOLD}$1${BOLD}`)
    .replace(/(?<![*\w])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![*\w])/g, '_$1_')
    .replace(/~~(?=\S)(.+?)(?<=\S)~~/g, '~$1~')
    .replace(new RegExp(BOLD, 'g'), '*');
}

/**
 * Slack message markup → the plain text the model reads: `<@BOT>` mentions removed, links shown as their URL
 * (with the label when it differs), `&amp;`/`&lt;`/`&gt;` decoded. Other user mentions stay as `<@U…>`.
 */
export function fromSlackText(text: string, botUserId: string): string {
  return text
    .replace(new RegExp(`<@${botUserId}(\\|[^>]*)?>`, 'g'), '')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_all, url: string, label: string) =>
      label === url || label === url.replace(/^(https?:\/\/|mailto:)/, '') ? url : `${label} (${url})`,
    )
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .trim();
}

/** Whether Slack text mentions the bot user (`<@U…>` or `<@U…|name>`). */
export function mentionsUser(text: string, userId: string): boolean {
  return userId !== '' && new RegExp(`<@${userId}(\\|[^>]*)?>`).test(text);
}

/**
 * Rewrites the platform-neutral command hints the gateway writes (`/link`, `/unlink`, `/ask`) into this app's
 * slash command (`/sandpiper link`), so private answers name commands that exist in Slack.
 */
export function slackCommandHints(text: string, slash: string): string {
  return text.replace(/(^|[\s`(])\/(link|unlink|ask|status|close|cancel)\b/g, `$1${slash} $2`);
}
