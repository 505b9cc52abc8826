/**
 * Pending OAuth authorizations: each `state` is random (32 characters), bound to one user, server and conversation,
 * single-use and expiring. Calls waiting for a user's authorization of a server wait here until its callback lands.
 */
import { randomBytes } from 'node:crypto';

export interface AuthorizationBinding {
  server: string;
  userId: string;
  /** The conversation (workstream) whose call asked; '' for `sandpiper mcp auth login`. */
  conversationId: string;
}

export interface PendingAuthorization extends AuthorizationBinding {
  state: string;
  expiresAt: number;
  codeVerifier: string | undefined;
}

const MAX_PENDING = 1000;

function waitKey(server: string, userId: string): string {
  return `${server}\u0000${userId}`;
}

export class AuthorizationStates {
  private readonly pending = new Map<string, PendingAuthorization>();
  private readonly waiters = new Map<string, Set<(failure?: Error) => void>>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  issue(binding: AuthorizationBinding): string {
    this.prune();
    const state = randomBytes(24).toString('base64url');
    this.pending.set(state, { ...binding, state, expiresAt: this.now() + this.ttlMs, codeVerifier: undefined });
    return state;
  }

  attachVerifier(state: string, codeVerifier: string): void {
    const entry = this.pending.get(state);
    if (entry) entry.codeVerifier = codeVerifier;
  }

  /** Takes a state out (single use); undefined when unknown, expired or never given a verifier. */
  consume(state: string): PendingAuthorization | undefined {
    const entry = this.pending.get(state);
    if (!entry) return undefined;
    this.pending.delete(state);
    if (entry.expiresAt <= this.now() || entry.codeVerifier === undefined) return undefined;
    return entry;
  }

  /** Wakes every call waiting for this user's authorization of this server (with `failure`: they fail with it). */
  completed(server: string, userId: string, failure?: Error): void {
    const key = waitKey(server, userId);
    const waiting = this.waiters.get(key);
    this.waiters.delete(key);
    for (const wake of waiting ?? []) wake(failure);
  }

  /** Resolves when the user finishes authorizing; rejects on abort or after `timeoutMs`. */
  waitFor(server: string, userId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    const key = waitKey(server, userId);
    return new Promise<void>((resolve, reject) => {
      const set = this.waiters.get(key) ?? new Set<(failure?: Error) => void>();
      this.waiters.set(key, set);
      const cleanup = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        set.delete(wake);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
      };
      const wake = (failure?: Error): void => {
        cleanup();
        if (failure) reject(failure);
        else resolve();
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`authorization not completed within ${Math.round(timeoutMs / 1000)}s`));
      }, timeoutMs);
      set.add(wake);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private prune(): void {
    const now = this.now();
    for (const [state, entry] of this.pending) if (entry.expiresAt <= now) this.pending.delete(state);
    while (this.pending.size >= MAX_PENDING) {
      const oldest = this.pending.keys().next().value;
      if (oldest === undefined) break;
      this.pending.delete(oldest);
    }
  }
}
