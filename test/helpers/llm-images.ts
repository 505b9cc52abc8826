/** Reads what a model request carried, in either wire format: the images (OpenAI `image_url` data URLs, Anthropic `image` blocks) and the user texts. */

export interface SentImage {
  vendor: 'openai' | 'anthropic';
  mediaType: string;
  bytes: Buffer;
}

type Json = Record<string, unknown>;

function partsOf(body: unknown): Json[] {
  const messages = (body as { messages?: Json[] } | undefined)?.messages ?? [];
  return messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Json[]) : []));
}

/** Every image part of a recorded request body, decoded. */
export function imagesIn(body: unknown): SentImage[] {
  const images: SentImage[] = [];
  for (const part of partsOf(body)) {
    if (part.type === 'image_url') {
      const url = String((part.image_url as Json | undefined)?.url ?? '');
      const match = /^data:([^;]+);base64,(.*)$/s.exec(url);
      if (match)
        images.push({
          vendor: 'openai',
          mediaType: match[1] as string,
          bytes: Buffer.from(match[2] as string, 'base64'),
        });
    }
    if (part.type === 'image') {
      const source = part.source as Json | undefined;
      images.push({
        vendor: 'anthropic',
        mediaType: String(source?.media_type),
        bytes: Buffer.from(String(source?.data), 'base64'),
      });
    }
  }
  return images;
}

/** The text of the last user message of a recorded request body (string content or its text parts). */
export function lastUserText(body: unknown): string {
  const messages = (body as { messages?: Json[] } | undefined)?.messages ?? [];
  const last = messages.filter((message) => message.role === 'user').at(-1);
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return (last.content as Json[])
    .filter((part) => part.type === 'text')
    .map((part) => String(part.text))
    .join('\n');
}
