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
    standing: async (label) => (ctx.autoApproveLabels().includes(label) ? 'allow' : host.evaluateNetworkPolicy?.(label)),
    ask: async ({ tool, destination, label }, signal) => {
      const decision = await request({ turnId: ctx.turnId, callId, tool, host: destination.host, port: destination.port, label }, signal);
      if (!decision.approved) return 'deny';
      if (!decision.always) return 'once';
      await host.addAutoApprove([label]);
      return 'always';
    },
  };
}
