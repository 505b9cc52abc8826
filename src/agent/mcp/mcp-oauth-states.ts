/**
 * Pending OAuth authorizations: each `state` is random (32 characters), bound to one user, server and conversation,
 * single-use and expiring. They live in the database (only the state's SHA-256), so the callback may land on any
 * instance; a waiting call learns the outcome from its instance's callback at once, or from the row (another
 * instance's callback, a Cancel clicked anywhere), which it reads every `pollMs` (the row is the truth; the poll only
 * wakes, like the cluster's handoffs). A failed read of the row does not end the wait: it is logged once per wait and
 * read again at the next tick, while the own instance's callback still wakes the call at once and the time-out, a
 * Cancel or the turn's abort still end it (a database blip must not cost the user a sign-in they are completing).
 */
import { createHash, randomBytes } from 'node:crypto';
import { describeError } from '../../shared/errors.js';
import { createSilentLogger, type Logger } from '../../shared/logger.js';
import type { McpOAuthOutcome, McpOAuthStateStore } from '../../storage/mcp-oauth-state-store.js';
import { McpCallError } from './mcp-call-error.js';
import type { McpAuthorizationEnd } from './mcp-manager-context.js';
import type { McpOAuthVault } from './mcp-oauth-vault.js';

export interface AuthorizationBinding {
  server: string;
  userId: string;
  /** The conversation (workstream) whose call asked; '' for `sandpiper mcp auth login`. */
  conversationId: string;
}

export interface PendingAuthorization extends AuthorizationBinding {
  stateHash: string;
  codeVerifier: string;
}

/** Expired rows stay this long, so a late click or callback is told "expired" rather than "unknown" in the logs. */
const PRUNE_AFTER_MS = 3_600_000;

export function hashState(state: string): string {
  return createHash('sha256').update(state).digest('base64url');
}

const FAILURES: Record<Exclude<McpOAuthOutcome, 'authorized'>, string> = {
  declined: 'the user declined the authorization',
  cancelled: 'the authorization was cancelled',
  failed: 'the authorization server refused the code',
};

/** A wait that ended without an authorization: the model sees the message as the call's error. */
export class AuthorizationWaitError extends McpCallError {
  constructor(
    readonly ending: Exclude<McpAuthorizationEnd, 'authorized' | 'stopped'>,
    message: string,
  ) {
    super('unauthorized', message);
  }
}

export interface AuthorizationStatesOptions {
  store: McpOAuthStateStore;
  vault: McpOAuthVault;
  ttlMs: number;
  pollMs: number;
  now?: () => number;
  /** Where a failed read of a waiting authorization's row is reported (once per wait). */
  logger?: Logger;
}

export class AuthorizationStates {
  private readonly waiters = new Map<string, (outcome: McpOAuthOutcome) => void>();
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly options: AuthorizationStatesOptions) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? createSilentLogger();
  }

  async issue(binding: AuthorizationBinding): Promise<string> {
    const state = randomBytes(24).toString('base64url');
    const now = this.now();
    await this.options.store.create(
      { ...binding, stateHash: hashState(state), expiresAt: now + this.options.ttlMs },
      now - PRUNE_AFTER_MS,
    );
    return state;
  }

  async attachVerifier(state: string, codeVerifier: string): Promise<void> {
    await this.options.store.setVerifier(hashState(state), this.options.vault.seal(codeVerifier));
  }

  /** Takes a state out (single use, across instances); undefined when unknown, used, expired, settled or without verifier. */
  async consume(state: string): Promise<PendingAuthorization | undefined> {
    const row = await this.options.store.consume(hashState(state), this.now());
    if (!row?.verifier) return undefined;
    const binding = { server: row.server, userId: row.userId, conversationId: row.conversationId };
    return { ...binding, stateHash: row.stateHash, codeVerifier: this.options.vault.open(row.verifier) };
  }

  /** Records how an authorization ended and wakes its call when it waits here (elsewhere it reads the row). */
  async settle(stateHash: string, outcome: McpOAuthOutcome, unsettled?: { userId?: string }): Promise<boolean> {
    const changed = await this.options.store.settle(stateHash, outcome, unsettled);
    if (changed) this.waiters.get(stateHash)?.(outcome);
    return changed;
  }

  /** Resolves when the user finishes authorizing; rejects when it ends otherwise, on abort or after `timeoutMs`. */
  async waitFor(stateHash: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const outcome = await new Promise<McpOAuthOutcome>((resolve, reject) => {
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        clearInterval(poll);
        signal.removeEventListener('abort', onAbort);
        if (this.waiters.get(stateHash) === wake) this.waiters.delete(stateHash);
        settle();
      };
      const wake = (value: McpOAuthOutcome): void => finish(() => resolve(value));
      const onAbort = (): void =>
        finish(() => reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled')));
      const late = `authorization not completed within ${Math.round(timeoutMs / 1000)}s`;
      // Purpose: timeout (the authorization wait expires).
      const timer = setTimeout(() => finish(() => reject(new AuthorizationWaitError('expired', late))), timeoutMs);
      // Poll: wakes on another instance's callback or Cancel. A failed read keeps waiting (see the file comment).
      // Purpose: cadence (the stored outcome is polled; another instance may complete it).
      const reader = this.outcomeReader(stateHash);
      const poll = setInterval(
        () => void reader().then((value) => value !== undefined && wake(value)),
        this.options.pollMs,
      );
      this.waiters.set(stateHash, wake);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    if (outcome !== 'authorized') throw new AuthorizationWaitError(outcome, FAILURES[outcome]);
  }

  /** Reads the row's outcome; a failed read is undefined (still pending), logged the first time in this wait only. */
  private outcomeReader(stateHash: string): () => Promise<McpOAuthOutcome | undefined> {
    let reported = false;
    return async () => {
      try {
        return (await this.options.store.get(stateHash))?.outcome ?? undefined;
      } catch (error) {
        if (!reported)
          this.logger.warn({ err: describeError(error) }, 'MCP authorization state could not be read; still waiting');
        reported = true;
        return undefined;
      }
    };
  }
}
