/**
 * After a sync, folders that only the entries it deleted or moved away
 * implied, now empty and without an entry of their own, are removed from
 * the workspace, as a fresh open of the new zip would not make them. Without
 * this, in an archive that stores no folder entries, deleting `src/main.py`
 * (the only file of `src/`) left an empty `src/` that the next status called
 * new and the next sync added: status and sync disagreed.
 */
import fs from 'node:fs';
import { withBeneath } from '../files/beneath.ts';
import { foldersOf } from '../rules/item-type.ts';
import type { EntryRecord } from '../session/manifest.ts';

export function removeEmptiedFolders(root: string, gone: readonly EntryRecord[], after: readonly EntryRecord[]): void {
  if (gone.length === 0) return;
  const kept = foldersOf(after);
  const emptied = [...foldersOf(gone)].filter((folder) => !kept.has(folder));
  if (emptied.length === 0) return;
  // Deepest first: a parent is empty only once its emptied children are gone.
  emptied.sort((a, b) => b.split('/').length - a.split('/').length);
  // Tidying only: the zip and the manifest are in place already, so nothing here may fail the sync.
  try {
    withBeneath(root, (beneath) => {
      for (const folder of emptied) {
        try {
          fs.rmdirSync(beneath.place(folder).path);
        } catch {
          // Not empty (something new is in it), already gone, or no longer a folder: left as it is.
        }
      }
    });
  } catch {
    // The workspace folder itself is unusable: the next status says so.
  }
}
