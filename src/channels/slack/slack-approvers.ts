/**
 * Configured approvers on Slack: members of the user groups in `slack.approver_groups`, read with
 * `usergroups.users.list` (scope `usergroups:read`) and kept for a minute, so a click costs no API call most times.
 * A failed lookup counts as "not an approver" (fail closed) and is logged once per failure.
 */
import { LRUCache } from 'lru-cache';
import { describeError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';

const MEMBERS_TTL_MS = 60_000;

/** A Web API call in the workspace of `via` (a user id). */
type Call = (
  method: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  via: string,
) => Promise<Record<string, unknown>>;

export class SlackApprovers {
  private readonly members = new LRUCache<string, ReadonlySet<string>>({ max: 64, ttl: MEMBERS_TTL_MS });

  constructor(
    private readonly groups: readonly string[],
    private readonly call: Call,
    private readonly logger: Logger,
  ) {}

  async isApprover(userId: string, signal: AbortSignal): Promise<boolean> {
    for (const group of this.groups) {
      if ((await this.membersOf(group, userId, signal)).has(userId)) return true;
    }
    return false;
  }

  private async membersOf(group: string, userId: string, signal: AbortSignal): Promise<ReadonlySet<string>> {
    const cached = this.members.get(group);
    if (cached !== undefined) return cached;
    try {
      // Asked in the clicking user's workspace: a group of another workspace is unknown there (not an approver).
      const answer = await this.call('usergroups.users.list', { usergroup: group }, signal, userId);
      const users = Array.isArray(answer['users'])
        ? answer['users'].filter((user): user is string => typeof user === 'string')
        : [];
      const members = new Set(users);
      this.members.set(group, members);
      return members;
    } catch (error) {
      this.logger.warn(
        { group, error: describeError(error) },
        'slack approver group could not be read (add the usergroups:read scope)',
      );
      return new Set();
    }
  }
}
