/** Turns MCP tool results, resource contents and prompt messages into the text the model reads. */
import { fenceUntrusted, type FenceOrigin } from '../../shared/untrusted-fence.js';
import type { ToolResult } from '../tools/tool.js';
import type { McpContentItem, McpPromptMessage, McpResourceContent, McpToolCallResult } from './mcp-types.js';

function contentItemText(item: McpContentItem): string {
  if (item.type === 'text' && typeof item['text'] === 'string') return item['text'];
  if (typeof item['data'] === 'string') {
    const mimeType = typeof item['mimeType'] === 'string' && item['mimeType'] !== '' ? item['mimeType'] : 'binary';
    return `[${mimeType} data, ${item['data'].length} bytes]`;
  }
  if (item.type === 'resource_link' && typeof item['uri'] === 'string') return `[resource link: ${item['uri']}]`;
  const resource = item['resource'];
  if (item.type === 'resource' && resource !== null && typeof resource === 'object') {
    const embedded = resource as Record<string, unknown>;
    if (typeof embedded['text'] === 'string') return embedded['text'];
    if (typeof embedded['blob'] === 'string') return embedded['blob'];
  }
  return JSON.stringify(item);
}

/**
 * Items joined by newlines; `isError` results are prefixed with "Error: ". With `origin`, the server's text is fenced as
 * untrusted data (the prefix stays outside the fence).
 */
export function formatToolResult(result: McpToolCallResult, origin?: FenceOrigin): ToolResult {
  const text = result.content.map(contentItemText).join('\n');
  const plain = text === '' ? '(no output)' : text;
  const output = origin === undefined ? plain : fenceUntrusted(origin, plain);
  return { output: result.isError ? `Error: ${output}` : output, isError: result.isError };
}

export function formatResourceContents(contents: readonly McpResourceContent[]): string {
  const text = contents.map((content) => content.text ?? content.blob ?? JSON.stringify(content)).join('\n');
  return text === '' ? '(empty resource)' : text;
}

export function formatPromptMessages(messages: readonly McpPromptMessage[]): string {
  return messages.map((message) => `[${message.role}]: ${contentItemText(message.content)}`).join('\n\n');
}
