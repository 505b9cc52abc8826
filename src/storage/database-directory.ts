/** The directory a SQLite database file lives in. */
import { mkdirSync } from 'node:fs';
import { StorageError } from '../shared/errors.js';

/** Creates the directory of the SQLite file; a failure names the directory (a path, not a secret) and the errno code. */
export function createDatabaseDirectory(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new StorageError(
      'STORAGE_ERROR',
      `cannot create the database directory ${directory} (${code}); check gateway.data_dir`,
    );
  }
}
