/**
 * Entries of a lazy session found by path without an index of every path (lazy-entries.ts,
 * LazyEntries): one pass over the directory's records, each name's bytes compared with the few
 * paths wanted in place, no string made but for a match or a name that is not plain. For the few
 * paths a scan finds on disk that the manifest does not list (a file written at an entry's path
 * without extracting it, a new folder) and a sync's new paths: the index places and sorts every
 * path, a million strings at a million entries.
 */
import type { PackedDirectory } from '../zip/index.ts';
import type { ItemType } from '../rules/item-type.ts';
import { placeOf, plainPath } from './lazy-entries.ts';

/** How many paths one pass looks for at most: more are found through the index, its sorting paid once. */
export const FEW_PATHS = 32;

/** The entries at `wanted` paths (at most FEW_PATHS), by path, with their types: those the directory has. */
export function findPlaced(
  directory: PackedDirectory,
  wanted: ReadonlySet<string>,
): Map<string, { index: number; type: ItemType }> {
  const list = [...wanted];
  const region = directory.region;
  // A name whose bytes are a wanted path (a folder's with a trailing slash), or that is not plain (its path may be
  // another than its bytes): placed as open places it. A plain name of other bytes is no wanted path.
  const named = (index: number) => {
    const start = directory.nameStart(index);
    const length = directory.nameLength(index);
    for (const relative of list) {
      const n = relative.length;
      if (n !== length && !(n + 1 === length && region[start + n] === SLASH)) continue;
      let k = 0;
      while (k < n && region[start + k] === relative.charCodeAt(k)) k++;
      if (k === n) return true;
    }
    return false;
  };
  const found = new Map<string, { index: number; type: ItemType }>();
  for (let index = 0; index < directory.count && found.size < wanted.size; index++) {
    if (!named(index) && plainPath(directory, index)) continue;
    // Open refused two entries at one path: the first found is the one.
    const placed = placeOf(directory, index);
    if (wanted.has(placed.path) && !found.has(placed.path)) found.set(placed.path, { index, type: placed.type });
  }
  return found;
}

/**
 * Calls `visit` with each entry (but those in `skip`) at, on the way to, or below one of the `near` paths (at most
 * FEW_PATHS), and maybe others, until it returns false: in one pass, a plain name compared with them in place, no
 * string made for the rest.
 */
export function forEachNear(
  directory: PackedDirectory,
  near: readonly string[],
  skip: ReadonlySet<number>,
  visit: (path: string, type: ItemType) => boolean | void,
): void {
  const region = directory.region;
  // Whether the plain name at `start` (a folder's trailing slash left off) and `relative` are one path, or one is
  // a folder of the other: their common length the same bytes, a slash or the end after it in the longer.
  const related = (start: number, length: number, relative: string) => {
    const common = Math.min(length, relative.length);
    for (let k = 0; k < common; k++) if (region[start + k] !== relative.charCodeAt(k)) return false;
    if (length === relative.length) return true;
    return length < relative.length ? relative.charCodeAt(length) === SLASH : region[start + common] === SLASH;
  };
  for (let index = 0; index < directory.count; index++) {
    if (skip.has(index)) continue;
    if (plainPath(directory, index)) {
      const start = directory.nameStart(index);
      let length = directory.nameLength(index);
      if (region[start + length - 1] === SLASH) length--;
      let any = false;
      for (let n = 0; n < near.length && !any; n++) any = related(start, length, near[n]!);
      if (!any) continue;
    }
    const placed = placeOf(directory, index);
    if (visit(placed.path, placed.type) === false) return;
  }
}

/** Whether the directory stores a folder entry (a jar, most zip tools) rather than implying its folders. */
export function storesFolders(directory: PackedDirectory): boolean {
  const region = directory.region;
  for (let index = 0; index < directory.count; index++) {
    if (plainPath(directory, index)) {
      if (region[directory.nameStart(index) + directory.nameLength(index) - 1] === SLASH) return true;
      continue;
    }
    const placed = placeOf(directory, index);
    if (placed.type === 'dir' && placed.path !== '') return true; // '': a root entry ("./"), no folder
  }
  return false;
}

const SLASH = 0x2f;
