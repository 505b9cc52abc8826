/** Whether this instance is part of a cluster (ADR 0021): the database is PostgreSQL. SQLite is single-instance (ADR 0023). */
import type { Config } from '../../config/index.js';

export function isClustered(config: Config): boolean {
  return /^postgres(ql)?:\/\//.test(config.database.url ?? '');
}
