/** A tool call's network permissions (`tools.network = "ask"`): standing decisions and the owner's network cards. */
import type { NetworkPermissions } from '../sandbox/egress/egress-session.js';
import type { TurnContext } from './turn-types.js';

/** Undefined when the host shows no cards (then only `tools.network_allow` passes). */
export function networkPermissionsFor(ctx: TurnContext, callId: string): NetworkPermissions | undefined {
  const { host } = ctx;
  const request = host.requestNetworkApproval?.bind(host);
  if (request === undefined) return undefined;
  return {
    // "Always here" answers live in the workstream's auto-approve set, matched exactly (a glob there never opens the network).
    standing: async (label) =>
      ctx.autoApproveLabels().includes(label) ? 'allow' : host.evaluateNetworkPolicy?.(label),
    ask: async ({ tool, destination, label }, signal) => {
      // Like a tool card: the workstream waits for its owner while the card is open.
      await host.setState('attention');
      let decision: Awaited<ReturnType<typeof request>>;
      try {
        decision = await request(
          { turnId: ctx.turnId, callId, tool, host: destination.host, port: destination.port, label },
          signal,
        );
      } finally {
        if (!ctx.signal.aborted) await host.setState('running');
      }
      if (!decision.approved) return 'deny';
      if (!decision.always) return 'once';
      await host.addAutoApprove([label]);
      return 'always';
    },
  };
}
