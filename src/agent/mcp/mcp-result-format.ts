/** Turns MCP tool results, resource contents and prompt messages into the text the model reads. */
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

/** Items joined by newlines; `isError` results are prefixed with "Error: ". */
export function formatToolResult(result: McpToolCallResult): ToolResult {
  const text = result.content.map(contentItemText).join('\n');
  const output = text === '' ? '(no output)' : text;
  return { output: result.isError ? `Error: ${output}` : output, isError: result.isError };
}

export function formatResourceContents(contents: readonly McpResourceContent[]): string {
  const text = contents
    .map((content) => content.text ?? content.blob ?? JSON.stringify(content))
    .join('\n');
  return text === '' ? '(empty resource)' : text;
}

export function formatPromptMessages(messages: readonly McpPromptMessage[]): string {
  return messages.map((message) => `[${message.role}]: ${contentItemText(message.content)}`).join('\n\n');
}
