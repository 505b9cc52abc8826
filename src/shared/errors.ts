/** The error hierarchy: one base class with a string code, one subclass per boundary. */

export type ErrorCode =
  | 'CONFIG_INVALID'
  | 'USAGE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'BAD_REQUEST'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'CANCELLED'
  | 'PROVIDER_ERROR'
  | 'TOOL_ERROR'
  | 'TOOL_TIMEOUT'
  | 'MCP_ERROR'
  | 'CHANNEL_ERROR'
  | 'STORAGE_ERROR'
  /** `sandpiper start` on a SQLite database another gateway already runs on (exit 2, ADR 0023). */
  | 'ALREADY_RUNNING'
  | 'INTERNAL';

export interface GatewayErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  data?: Record<string, unknown>;
}

/** Base class of every error we throw on purpose. Messages never contain secrets or user text. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.data = options.data;
  }
}

/** One or more configuration problems; `issues` name the key (`section.key`) and its source. */
export class ConfigError extends GatewayError {
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super('CONFIG_INVALID', issues.join('; '));
    this.issues = issues;
  }
}

/** Command-line usage problem (exit code 2). */
export class UsageError extends GatewayError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

export class StorageError extends GatewayError {}

export class ProviderError extends GatewayError {
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    options: GatewayErrorOptions & { status?: number; retryAfterMs?: number; code?: ErrorCode } = {},
  ) {
    const status = options.status;
    const retryable =
      options.retryable ??
      (status === undefined || status === 408 || status === 409 || status === 429 || status >= 500);
    super(options.code ?? (status === 429 ? 'RATE_LIMITED' : 'PROVIDER_ERROR'), message, { ...options, retryable });
    this.status = status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

export class ToolError extends GatewayError {}

export class McpError extends GatewayError {}

export class ChannelError extends GatewayError {
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options: GatewayErrorOptions & { retryAfterMs?: number; code?: ErrorCode } = {}) {
    super(options.code ?? 'CHANNEL_ERROR', message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Short, secret-free description of any thrown value, for logs and user-safe messages. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The write that would store a message found its pending claim taken by another instance (`reclaim`: this process
 * looked dead to it). The write is not made; the other instance answers the message, this one drops it silently.
 */
export class ClaimLostError extends GatewayError {
  constructor(platform: string) {
    super('CONFLICT', `the message's claim was taken over by another instance (${platform})`);
  }
}

export function isClaimLost(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (cause instanceof ClaimLostError) return true;
  return false;
}
