/** The tool port: definitions, the prepare/execute contract, and the ToolSource that lists and runs tools. */
import type { Logger } from '../../shared/logger.js';
import type { ContentPart } from '../messages.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import type { NetworkPermissions } from '../sandbox/egress/egress-session.js';
import type { ToolAccess } from './tool-access.js';
import type { SubAgentPort } from './sub-agent-port.js';

/** A tool as loaded from `tools/<name>.json` (or from an MCP server), metadata included. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Offered to read-only sub-agents. */
  agent: boolean;
  /** Offered to task sub-agents. */
  taskAgent: boolean;
  /** Runs without approval inside sub-agents. */
  autoApprove: boolean;
  /** Argument that a bare (non-JSON) string is assigned to. */
  primaryKey?: string;
}

/** Display and approval facts for one call, computed before anything runs. */
export interface ToolPreparation {
  /** One line, e.g. `⚙ bash: ls -la`; starts with `✗` for errors. */
  header: string;
  /** Multi-line detail (command, diff, content excerpt). */
  preview: string;
  needsApproval: boolean;
  /** Matched by policies and auto-approve rules; defaults to the tool name. */
  approvalLabel: string;
  /** When set the call does not run; this text becomes the tool result. */
  error?: string;
  /**
   * The call runs without the per-call timeout (only cancel stops it): sub-agents and plan reviews wait for people and
   * for many model calls.
   */
  untimed?: boolean;
}

export interface ToolResult {
  output: string | ContentPart[];
  isError: boolean;
}

/** What a running tool may use. One context per call. */
export interface ToolContext {
  /** Aborts on cancel or timeout; handlers must stop work and release resources. */
  signal: AbortSignal;
  workstreamId: string;
  /** The user turn the call belongs to (per-turn limits such as notify's); absent outside a turn. */
  turnId?: string;
  /** The workstream's working directory; relative paths resolve here. */
  cwd: string;
  timeoutMs: number;
  /** Character cap for tool output (see truncateOutput). */
  outputLimit: number;
  supportsVision: boolean;
  /** Canonical paths the model has read this session (read-before-edit rule). */
  readFiles: Set<string>;
  logger: Logger;
  /** Streams partial output (bash) as `tool-output-chunk` events. */
  onOutput?: (chunk: string) => void;
  /** A side call to the workstream's model (web_fetch extraction), text in, text out. */
  askModel?: (prompt: string, signal: AbortSignal) => Promise<string>;
  /** Read roots and protected gateway paths (set by the built-in tool source; absent = the workspace only). */
  access?: ToolAccess;
  /** Where child processes run (set by the built-in tool source; absent = no sandbox). */
  sandbox?: Sandbox;
  /** Sub-agents and plan reviews (`task`, `plan`); absent inside sub-agents, which cannot spawn further agents. */
  subAgents?: SubAgentPort;
  /** The called tool's name (network cards say who asks). */
  toolName?: string;
  /** Standing network decisions and the owner's network cards (`tools.network = "ask"`); absent = allowlist only. */
  network?: NetworkPermissions;
}

/** A built-in tool's implementation, in `builtin/<tool_name>.ts`. */
export interface ToolHandler {
  readonly name: string;
  /** Validates arguments (already schema-checked) and builds header/preview/approval facts. Never throws. */
  prepare(args: Record<string, unknown>, context: ToolContext): ToolPreparation | Promise<ToolPreparation>;
  /** Runs the call. Expected failures are `{isError: true}` results; honours `context.signal`. */
  execute(args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}

/** A provider of tools: the built-in registry or the MCP manager. */
export interface ToolSource {
  /** Tools currently available from this source. */
  listTools(signal?: AbortSignal): Promise<ToolDefinition[]>;
  /** Whether this source owns the tool name. */
  hasTool(name: string): boolean;
  /** Display and approval facts for a call of one of its tools. */
  prepare(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolPreparation>;
  /** Runs one call; failures come back as `isError` results, never as throws (except aborts). */
  callTool(name: string, args: Record<string, unknown>, context: ToolContext): Promise<ToolResult>;
}
