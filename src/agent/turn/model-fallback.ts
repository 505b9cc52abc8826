/**
 * The fallback model (`models.<alias>.fallback`, docs/design/usage.md): when a call fails because the provider is
 * unreachable (refused or cut connection, timeout, HTTP 408, 429 or 5xx, after the retries of `streamWithRetries`) and
 * nothing of the answer was streamed yet, the call is made again on the fallback, which answers the rest of the turn.
 * Other errors (bad request, authentication, context length) are never answered by another model.
 */
import { describeError, ProviderError } from '../../shared/errors.js';
import type { TurnContext, TurnModel } from './turn-types.js';

/** The provider could not be reached or could not serve right now: another provider may. */
export function isUnreachable(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  if (error.data?.['contextLength'] === true) return false;
  const status = error.status;
  if (status === undefined) return error.retryable;
  return status === 408 || status === 429 || status >= 500;
}

const nameOf = (model: TurnModel): string => model.alias ?? model.model;

/** What the thread shows before the fallback's answer. */
export function fallbackNote(failed: TurnModel, fallback: TurnModel): string {
  return `_Model ${nameOf(failed)} is unreachable; answered by ${nameOf(fallback)}._\n\n`;
}

/**
 * After a failed call: switches the turn to the fallback model (told to the thread) and returns true when the call
 * should be made again on it; false when the error is not one to fall back on, text was streamed, or there is none.
 */
export function switchToFallback(ctx: TurnContext, error: unknown, streamed: string): boolean {
  if (ctx.signal.aborted || streamed !== '' || !isUnreachable(error)) return false;
  const fallback = ctx.model.fallback?.();
  if (fallback === undefined) return false;
  const failed = ctx.model;
  ctx.logger.warn(
    { wsId: ctx.wsId, model: nameOf(failed), fallback: nameOf(fallback), err: describeError(error) },
    'model unreachable; the fallback answers',
  );
  ctx.model = fallback;
  ctx.host.emit({ type: 'text-delta', text: fallbackNote(failed, fallback) });
  return true;
}
