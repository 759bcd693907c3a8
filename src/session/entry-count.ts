/** How many files and folders an archive holds, counted without an index of its paths. */
import { entryPath } from '../rules/entry-paths.ts';
import type { PackedDirectory } from '../zip/index.ts';
import { plainPath } from './lazy-entries.ts';

/**
 * Files and folders of a directory whose names open has checked already (a lazy session's new
 * archive: copied names were checked at open, new ones by sync), counted from one name at a time:
 * the count must not hold a million paths, as an index would.
 */
export function countEntries(directory: PackedDirectory): { files: number; folders: number } {
  const folders = new Set<string>();
  const region = directory.region;
  let files = 0;
  let parentStart = 0;
  let parentLength = -1;
  for (let i = 0; i < directory.count; i++) {
    if (!plainPath(directory, i)) {
      // Placed as open places it.
      const place = entryPath(directory.entry(i).name);
      if (place.isDirectory) {
        if (place.path !== '') folders.add(place.path);
      } else files++;
      addFoldersOf(place.path, folders);
      continue;
    }
    const start = directory.nameStart(i);
    const length = directory.nameLength(i);
    const isDirectory = region[start + length - 1] === SLASH;
    const end = isDirectory ? length - 1 : length;
    if (isDirectory) folders.add(directory.latin1(start, start + end));
    else files++;
    let slash = end - 1;
    while (slash >= 0 && region[start + slash] !== SLASH) slash--;
    if (slash < 0) continue;
    // A new parent folder only when the bytes before the last slash differ from the previous entry's.
    if (slash === parentLength && sameBytes(region, start, parentStart, slash)) continue;
    parentStart = start;
    parentLength = slash;
    addFoldersOf(`${directory.latin1(start, start + slash)}/x`, folders);
  }
  return { files, folders: folders.size };
}

const SLASH = 0x2f;

function sameBytes(bytes: Uint8Array, a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (bytes[a + i] !== bytes[b + i]) return false;
  return true;
}

/** Every folder on the way to `own`. */
function addFoldersOf(own: string, folders: Set<string>): void {
  for (let at = own.lastIndexOf('/'); at > 0; at = own.lastIndexOf('/', at - 1)) folders.add(own.slice(0, at));
}
