/**
 * `sandpiper admin token`: prints a short-lived admin API token for a script that calls `admin.listen` (ADR 0035),
 * minted from `auth.admin_secret` as `cli:<OS user>`. Minting is audited; the token itself is never stored or logged.
 */
import { ADMIN_OFF_HINT } from '../gateway/admin/admin-listen.js';
import { ConfigError, UsageError } from '../shared/errors.js';
import { cliActor, writeLine, type CliCommand } from './cli-context.js';
import { requirePositionals, withAuditedStores } from './command-table.js';

const MAX_MINUTES = 24 * 60;

function minutesOf(raw: unknown): number {
  if (raw === undefined) return 15;
  const minutes = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > MAX_MINUTES)
    throw new UsageError(`--minutes takes a whole number from 1 to ${MAX_MINUTES}`);
  return minutes;
}

export const adminTokenCommand: CliCommand = {
  name: 'admin token',
  usage: 'sandpiper admin token [--write] [--minutes N]',
  summary: 'print a short-lived admin API token (admin:read, or admin:write with --write; default 15 minutes)',
  options: { write: { type: 'boolean' }, minutes: { type: 'string' } },
  async run(context) {
    requirePositionals(context, 0, this.usage);
    const minutes = minutesOf(context.flags['minutes']);
    const scope = context.flags['write'] === true ? 'admin:write' : 'admin:read';
    const config = context.loadConfig();
    if (!config.auth.admin_secret) throw new ConfigError([`auth.admin_secret: ${ADMIN_OFF_HINT}`]);
    const { mintAdminToken } = await import('../gateway/http/auth.js');
    const subject = cliActor();
    const token = await withAuditedStores(
      context,
      { action: 'admin-token.mint', target: subject, detail: `${scope}, ${minutes} min` },
      () => mintAdminToken(config.auth.admin_secret, { subject, scopes: [scope], ttlSeconds: minutes * 60 }),
    );
    writeLine(context.io.stderr, `admin token (${scope}, valid ${minutes} min) for ${config.admin.listen}:`);
    writeLine(context.io.stdout, token);
    return 0;
  },
};
