/**
 * The retention job (ADR 0046): hourly, deletes conversations idle or closed for `gateway.retention_days` (with their
 * rows and workspace folders) and notify delivery records older than `gateway.notify_reply_days` (a reply can no longer
 * use them). The inbound ledger has its own pruning (inbound-ledger.ts). Every instance may run it: deletes are
 * idempotent, and a conversation with a turn or a lease is never touched.
 */
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { DataLifecycleStore } from '../storage/index.js';
import { removeWorkspaceFolders } from './admin/admin-user-lifecycle.js';

const RETENTION_INTERVAL_MS = 3_600_000;

export interface RetentionSettings {
  lifecycle: DataLifecycleStore;
  workspaceDir: string;
  /** 0 = conversations are kept forever. */
  retentionDays: number;
  notifyReplyDays: number;
  logger: Logger;
  now?: () => number;
}

/** One run; never throws (a failure is logged and the next run tries again). */
export async function runRetention(settings: RetentionSettings): Promise<void> {
  try {
    const policy = {
      conversationsDays: settings.retentionDays,
      notifyDeliveriesDays: settings.notifyReplyDays,
      ledgerDays: 0,
    };
    const purged = await settings.lifecycle.purgeExpired(policy, (settings.now ?? Date.now)());
    const folders = await removeWorkspaceFolders(settings.workspaceDir, purged.wsIds);
    if (purged.wsIds.length > 0 || purged.notifyDeliveries > 0 || purged.usageRows > 0) {
      const { notifyDeliveries, usageRows } = purged;
      settings.logger.info(
        { conversations: purged.wsIds.length, folders, notifyDeliveries, usageRows },
        'retention purge',
      );
    }
  } catch (error) {
    settings.logger.warn({ error: describeError(error) }, 'retention purge failed');
  }
}

/** Runs at once, then hourly; the timer does not hold the process open. */
export function startRetention(settings: RetentionSettings): NodeJS.Timeout {
  void runRetention(settings);
  // Purpose: cadence (retention runs hourly).
  const timer = setInterval(() => void runRetention(settings), RETENTION_INTERVAL_MS);
  timer.unref();
  return timer;
}
