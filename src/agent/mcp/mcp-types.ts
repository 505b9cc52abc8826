/** SDK-independent shapes of what MCP servers list and return; the connection layer maps the SDK onto these. */

export type McpListKind = 'tools' | 'resources' | 'prompts';

export interface McpServerCapabilities {
  tools: boolean;
  resources: boolean;
  prompts: boolean;
  toolsListChanged: boolean;
  resourcesListChanged: boolean;
  promptsListChanged: boolean;
}

export interface McpToolInfo {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface McpResourceInfo {
  uri: string;
  name: string;
  description: string;
  mimeType: string;
}

export interface McpPromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface McpPromptInfo {
  name: string;
  description: string;
  arguments: McpPromptArgument[];
}

/** One content block of a tool result or prompt message (text, image, audio, resource, resource_link). */
export type McpContentItem = Record<string, unknown> & { type: string };

export interface McpToolCallResult {
  content: McpContentItem[];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
}

export interface McpResourceContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
}

export interface McpPromptMessage {
  role: string;
  content: McpContentItem;
}

export interface McpRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A form-mode elicitation request from a server (`elicitation/create`). */
export interface McpElicitationParams {
  message: string;
  requestedSchema: Record<string, unknown>;
}

export interface McpElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}
