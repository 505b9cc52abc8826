/** bolt's logger on top of ours (its own is a console logger): warnings and errors only, shortened. */
import { LogLevel, type Logger as BoltLogger } from '@slack/bolt';
import type { Logger } from '../../shared/logger.js';
import { truncate } from '../format/truncate.js';

/** bolt's logger interface on top of ours: warnings and errors only, shortened (bolt never needs to say more). */
export function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.WARN;
  const text = (messages: unknown[]): string =>
    truncate(
      messages.map((m) => (m instanceof Error ? m.message : typeof m === 'string' ? m : '[object]')).join(' '),
      300,
    );
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...messages: unknown[]) => logger.warn({ source: 'bolt' }, text(messages)),
    error: (...messages: unknown[]) => logger.warn({ source: 'bolt' }, text(messages)),
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
