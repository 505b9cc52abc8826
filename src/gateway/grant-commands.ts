/**
 * `/grants` and `/forget` in chat (ADR 0046): the standing approvals that apply in this thread (or, outside one, the person's own),
 * and `/grants revoke:<id>` for a grant the person holds, made, or administers.
 */
import { grantPlace } from '../agent/approval-grants.js';
import { mayControl, type Person } from '../agent/ownership.js';
import type { ChannelAdapter, InboundEvent } from '../channels/channel-adapter.js';
import { isoNow } from '../shared/time.js';
import type { ApprovalGrant, Stores } from '../storage/index.js';
import type { Router } from './router.js';

type CommandEvent = Extract<InboundEvent, { type: 'command' }>;

export interface GrantCommandDeps {
  stores: Pick<Stores, 'grants' | 'routes' | 'workstreams' | 'memories'>;
  router: Pick<Router, 'linkedUser' | 'routeFor'>;
}

const LISTED = 20;

function line(grant: ApprovalGrant): string {
  const args = grant.argsGlob === null ? '' : ` with arguments \`${grant.argsGlob}\``;
  const where =
    grant.scope === 'conversation'
      ? 'this conversation'
      : grant.scope === 'user'
        ? 'you everywhere'
        : `channel ${grant.scopeKey}`;
  const until = grant.expires === null ? '' : `, until ${grant.expires} UTC`;
  return `\`${grant.grantId}\` ${grant.label}${args}: ${where}${until}`;
}

/** Whether the person may revoke the grant: an admin, its maker, or whom it applies to (the user, the conversation's owner). */
async function mayRevoke(deps: GrantCommandDeps, grant: ApprovalGrant, person: Person): Promise<boolean> {
  if (person.isAdmin || grant.createdBy === person.userId) return true;
  if (grant.scope === 'user') return grant.scopeKey === person.userId;
  if (grant.scope === 'conversation')
    return (await deps.stores.workstreams.get(grant.scopeKey))?.userId === person.userId;
  return false;
}

async function revoke(deps: GrantCommandDeps, grantId: string, person: Person): Promise<string> {
  const grant = await deps.stores.grants.get(grantId.trim());
  if (grant === undefined || !(await mayRevoke(deps, grant, person))) return `No grant \`${grantId}\` of yours.`;
  if (!(await deps.stores.grants.revoke(grant.grantId, person.userId)))
    return `Grant \`${grant.grantId}\` was already revoked.`;
  return `Revoked grant \`${grant.grantId}\` (${grant.label}): the next such call asks again.`;
}

function listing(grants: readonly ApprovalGrant[], where: string, command: string): string {
  if (grants.length === 0) return `No standing approvals ${where}. An "Always" click on an approval card makes one.`;
  const shown = grants.slice(0, LISTED).map(line);
  const more = grants.length > LISTED ? [`…and ${grants.length - LISTED} more (sandpiper approvals grants list).`] : [];
  return [`Standing approvals ${where}:`, ...shown, ...more, `Revoke one with ${command} revoke:<id>.`].join('\n');
}

/** The answer to `/grants` (privately, to the person who typed it). */
export async function grantsCommand(
  deps: GrantCommandDeps,
  adapter: ChannelAdapter,
  event: CommandEvent,
  notLinked: string,
): Promise<string> {
  const person = await deps.router.linkedUser(adapter.platform, event.user.id);
  if (!person) return notLinked;
  if (event.args.revoke !== undefined && event.args.revoke.trim() !== '')
    return revoke(deps, event.args.revoke, person);
  const command = adapter.commandText('grants');
  const routed = event.conversation.kind !== 'channel';
  const wsId = routed ? await deps.router.routeFor(adapter.platform, event.conversation.channelId) : undefined;
  const row = wsId === undefined ? undefined : await deps.stores.workstreams.get(wsId);
  if (row === undefined)
    return listing(await deps.stores.grants.list({ userId: person.userId, now: isoNow() }), 'of yours', command);
  if (!mayControl(row.userId, person)) return 'Only the owner of this workstream (or an admin) can see its approvals.';
  const grants = await deps.stores.grants.active(
    await grantPlace(deps.stores, { wsId: row.wsId, ownerUserId: row.userId }),
    isoNow(),
  );
  return listing(grants, 'in this conversation', command);
}

/** `/forget [memory]`: deletes the person's own user-scoped memories (all, or the one named); others' are untouched. */
export async function forgetCommand(
  deps: GrantCommandDeps,
  adapter: ChannelAdapter,
  event: CommandEvent,
  notLinked: string,
): Promise<string> {
  const person = await deps.router.linkedUser(adapter.platform, event.user.id);
  if (!person) return notLinked;
  const name = event.args.memory?.trim();
  if (name) {
    const deleted = await deps.stores.memories.delete(name, 'user', person.userId);
    return deleted ? `Forgot your memory \`${name}\`.` : `You have no memory named \`${name}\`.`;
  }
  const mine = await deps.stores.memories.list({ scope: 'user', scopeId: person.userId }, 10_000);
  for (const memory of mine) await deps.stores.memories.delete(memory.name, 'user', person.userId);
  return mine.length === 0 ? 'You have no memories to forget.' : `Forgot all ${mine.length} of your memories.`;
}
