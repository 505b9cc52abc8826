/** The package's root folder (the one holding package.json), for data files such as tools/*.json: the same from src/ (tsx) and dist/src/ (compiled). */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Walks up from the folder of `moduleUrl` to the nearest folder that has a package.json. */
export function packageRoot(moduleUrl: string): string {
  const start = path.dirname(fileURLToPath(moduleUrl));
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    if (path.dirname(folder) === folder) return start;
  }
}
