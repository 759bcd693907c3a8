import fs from 'node:fs';
import path from 'node:path';

/**
 * Bytes a folder takes (file sizes; links count as themselves), and removing it would free: a file with another name
 * (a session's base, hard-linked to its zip: base-archive.ts) counts as nothing. What cannot be read counts as nothing.
 */
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
      if (entry.isDirectory()) total += folderBytes(full);
      else {
        const stats = fs.lstatSync(full);
        if (stats.isSymbolicLink() || stats.nlink <= 1) total += stats.size;
      }
    } catch {
      // Gone or unreadable meanwhile.
    }
  }
  return total;
}
