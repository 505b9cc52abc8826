/** One `sandpiper doctor` check: a name, an outcome, what was seen, and what to do when it failed. */
import { describeError } from '../shared/errors.js';

export type CheckStatus = 'ok' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  /** `config`, `database`, `model main`, `discord`, `slack`, `mcp files`, `sandbox`. */
  name: string;
  status: CheckStatus;
  /** What the check saw (never a secret). */
  detail: string;
  /** What to do about a failure or warning. */
  fix?: string;
}

export const ok = (name: string, detail: string): CheckResult => ({ name, status: 'ok', detail });
export const fail = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'fail', detail, fix });
export const warn = (name: string, detail: string, fix: string): CheckResult => ({ name, status: 'warn', detail, fix });
export const skip = (name: string, detail: string): CheckResult => ({ name, status: 'skip', detail });

/** Runs a check; a throw becomes a failure with `fix` (the message of our errors carries no secret). */
export async function guarded(name: string, fix: string, run: () => Promise<CheckResult>): Promise<CheckResult> {
  try {
    return await run();
  } catch (error) {
    return fail(name, describeError(error), fix);
  }
}

/** A GET/POST with a timeout; a connection failure is a short reason (`ECONNREFUSED`, `timed out`), never a stack. */
export async function probe(
  url: string,
  init: RequestInit,
  timeoutMs = 10_000,
): Promise<{ status: number; body: unknown; headers: Headers } | { error: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: keep the text (some servers answer errors in plain text).
    }
    return { status: response.status, body, headers: response.headers };
  } catch (error) {
    if ((error as { name?: string }).name === 'TimeoutError')
      return { error: `no answer within ${Math.round(timeoutMs / 1000)} s` };
    const cause = (error as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? describeError(error) };
  }
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', fail: 'FAIL', warn: 'warn', skip: 'skip' };

/** One line: `ok   database   sqlite:/srv/sandpiper/data/sandpiper.db` or `FAIL discord  401 … → set discord.token …`. */
export function formatCheck(result: CheckResult, width: number): string {
  const line = `${MARK[result.status]} ${result.name.padEnd(width)}  ${result.detail}`;
  return result.fix && result.status !== 'ok' ? `${line} → ${result.fix}` : line;
}
