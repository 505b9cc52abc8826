/** A model call guarded against context overflow: compact before a call that would not fit, and once after a context-length error. */
import { GatewayError, ProviderError } from '../../shared/errors.js';
import { buildRequest } from './build-request.js';
import { callModel, type ModelCallResult, type PartialText } from './call-model.js';
import { AUTO_COMPACT_RATIO, compactHistory } from './compact-history.js';
import { estimateRequestTokens } from './estimate-tokens.js';
import { switchToFallback } from './model-fallback.js';
import type { TurnContext } from './turn-types.js';

const CONTEXT_PATTERN =
  /context[ _-]?(length|window)|maximum context|prompt is too long|too many tokens|input is too long/i;

/** Whether a provider rejected the request because the prompt does not fit the model's context. */
export function isContextLengthError(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  if (error.data?.['contextLength'] === true) return true;
  const type = error.data?.['type'];
  if (typeof type === 'string' && /context|too_long|too_large/i.test(type)) return true;
  if (error instanceof ProviderError && error.status === 413) return true;
  if (error instanceof ProviderError && error.status !== undefined && error.status !== 400 && error.status !== 413)
    return false;
  return CONTEXT_PATTERN.test(error.message);
}

/** A model call guarded against context overflow, answered by the fallback model when the provider is unreachable. */
export async function callWithCompaction(ctx: TurnContext, partial: PartialText): Promise<ModelCallResult> {
  try {
    return await compactingCall(ctx, partial);
  } catch (error) {
    if (!switchToFallback(ctx, error, partial.text)) throw error;
    return compactingCall(ctx, partial);
  }
}

async function compactingCall(ctx: TurnContext, partial: PartialText): Promise<ModelCallResult> {
  let request = await buildRequest(ctx);
  if (estimateRequestTokens(request) > ctx.model.contextWindow * AUTO_COMPACT_RATIO && (await compactHistory(ctx))) {
    request = await buildRequest(ctx);
  }
  try {
    return await callModel(ctx, request, partial);
  } catch (error) {
    if (ctx.signal.aborted || partial.text !== '' || !isContextLengthError(error)) throw error;
    ctx.logger.warn({ wsId: ctx.wsId }, 'context length exceeded; compacting and retrying once');
    if (!(await compactHistory(ctx))) throw error;
    return callModel(ctx, await buildRequest(ctx), partial);
  }
}
