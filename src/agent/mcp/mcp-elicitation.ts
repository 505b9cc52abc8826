/** Server elicitation requests: hand them to the registered handler (a channel form) and decline after a timeout. */
import { newHexId } from '../../shared/ids.js';
import { isoFromMs } from '../../shared/time.js';
import type { ManagerContext, McpElicitationRequest } from './mcp-manager-context.js';
import type { McpElicitationAnswer, McpElicitationParams } from './mcp-types.js';

const DECLINE: McpElicitationAnswer = { action: 'decline' };

/** Never throws: no handler, a handler failure or the timeout all answer `decline`; a server cancel answers `cancel`. */
export async function handleElicitation(
  context: ManagerContext,
  server: string,
  params: McpElicitationParams,
  serverSignal: AbortSignal,
): Promise<McpElicitationAnswer> {
  const logger = context.settings.logger;
  const handler = context.elicitationHandler;
  if (!handler || context.isShutdown) {
    logger.info({ server }, 'MCP elicitation declined: no channel can answer');
    return DECLINE;
  }
  const timeoutMs = context.settings.elicitationTimeoutMs;
  const request: McpElicitationRequest = {
    id: newHexId(),
    server,
    message: params.message,
    requestedSchema: params.requestedSchema,
    workstreamIds: [...(context.servers.get(server)?.inFlight.keys() ?? [])],
    expiresAt: isoFromMs(Date.now() + timeoutMs),
  };
  const controller = new AbortController();
  // Purpose: timeout (an unanswered elicitation expires).
  const timer = setTimeout(() => controller.abort(new Error('elicitation timed out')), timeoutMs);
  const onServerAbort = (): void => controller.abort(new Error('cancelled by server'));
  serverSignal.addEventListener('abort', onServerAbort, { once: true });
  const aborted = new Promise<McpElicitationAnswer>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(serverSignal.aborted ? { action: 'cancel' } : DECLINE), {
      once: true,
    });
  });
  try {
    const answer = await Promise.race([handler(request, controller.signal).then(validAnswer), aborted]);
    logger.info({ server, elicitationId: request.id, action: answer.action }, 'MCP elicitation answered');
    return answer;
  } catch (error) {
    logger.warn(
      { server, elicitationId: request.id, err: error instanceof Error ? error.message : String(error) },
      'MCP elicitation handler failed',
    );
    return DECLINE;
  } finally {
    clearTimeout(timer);
    serverSignal.removeEventListener('abort', onServerAbort);
    if (!controller.signal.aborted) controller.abort(new Error('elicitation settled'));
  }
}

function validAnswer(answer: McpElicitationAnswer): McpElicitationAnswer {
  if (answer.action === 'accept') return answer.content === undefined ? { action: 'accept', content: {} } : answer;
  return { action: answer.action === 'cancel' ? 'cancel' : 'decline' };
}
