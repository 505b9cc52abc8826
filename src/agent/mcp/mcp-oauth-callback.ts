/** The OAuth callback's work: a code is exchanged and stored, a decline ends the wait, a login learns the catalog. */
import { authorize } from './mcp-sdk.js';
import {
  errorMessage,
  track,
  type ManagerContext,
  type McpOAuthRuntime,
  type ServerState,
} from './mcp-manager-context.js';
import { connectUser, providerFor, userMutex } from './mcp-oauth-calls.js';

export type McpAuthorizationOutcome =
  { ok: true; server: string; userId: string } | { ok: false; status: 400 | 502; message: string };

/** The `/v1/oauth/callback` work: a known, unexpired, unused `state` and the code exchange store the user's token. */
export async function completeAuthorization(
  context: ManagerContext,
  stateParam: string,
  code: string,
): Promise<McpAuthorizationOutcome> {
  const runtime = context.oauth;
  const pending = await runtime?.states.consume(stateParam);
  if (!runtime || !pending)
    return { ok: false, status: 400, message: 'This authorization link is unknown, used or expired.' };
  const state = context.servers.get(pending.server);
  if (!state?.spec.oauth) {
    await runtime.states.settle(pending.stateHash, 'failed');
    return { ok: false, status: 400, message: 'This authorization link is for a server that is no longer configured.' };
  }
  const provider = providerFor(runtime, state, pending, pending.codeVerifier);
  try {
    await authorize(provider, { serverUrl: state.spec.url, authorizationCode: code });
  } catch (error) {
    context.settings.logger.warn(
      { server: pending.server, err: errorMessage(error).slice(0, 200) },
      'MCP OAuth code exchange failed',
    );
    await runtime.states.settle(pending.stateHash, 'failed');
    return {
      ok: false,
      status: 502,
      message: 'The authorization server refused the code; start again from a new link.',
    };
  }
  const previous = state.userConnections.get(pending.userId);
  if (previous) {
    state.userConnections.delete(pending.userId);
    track(context, previous.close(), 'connection close');
  }
  await runtime.states.settle(pending.stateHash, 'authorized');
  learnCatalogAfterLogin(context, runtime, state, pending.userId);
  context.settings.logger.info({ server: pending.server, userId: pending.userId }, 'MCP OAuth authorization completed');
  return { ok: true, server: pending.server, userId: pending.userId };
}

/** The user declined at the authorization server: the state is spent and the waiting call (on any instance) stops. */
export async function declineAuthorization(context: ManagerContext, stateParam: string): Promise<void> {
  const pending = await context.oauth?.states.consume(stateParam);
  if (pending) await context.oauth?.states.settle(pending.stateHash, 'declined');
}

/** After a callback nobody waits on (a login ahead of time): connect as that user so an unknown catalog is learned. */
function learnCatalogAfterLogin(
  context: ManagerContext,
  runtime: McpOAuthRuntime,
  state: ServerState,
  userId: string,
): void {
  if (!state.needsAuthorization) return;
  const provider = providerFor(runtime, state, { server: state.spec.name, userId, conversationId: '' });
  const work = userMutex(state, userId).run(async () => {
    if (!state.userConnections.has(userId))
      await connectUser(context, state, userId, provider, new AbortController().signal);
  });
  track(context, work, 'catalog discovery after authorization');
}
