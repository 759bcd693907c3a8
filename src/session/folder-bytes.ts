import fs from 'node:fs';
import path from 'node:path';

/** Bytes a folder takes (file sizes; links count as themselves). What cannot be read counts as nothing. */
export function folderBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    try {
      total += entry.isDirectory() ? folderBytes(full) : fs.lstatSync(full).size;
    } catch {
      // Gone or unreadable meanwhile.
    }
  }
  return total;
}
