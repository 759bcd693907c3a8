/**
 * Whether a scan of the workspace shows nothing the diff (workspace-diff.ts) would call a change,
 * judged from the stat index alone (session/stat-index.ts): every entry at its path in the kind it
 * was (a folder a folder; a file or link a regular file whose stat proves it untouched, by
 * content-match.ts's rule), every file and link on disk an entry, and every folder on disk an entry
 * or holding one (the diff then counts it implied, never added). Anything short of that sends
 * status the long way, which decides; so a verdict may say "not sure", never "clean" wrongly.
 *
 * Two ways to the same answer: walking the index and the scan side by side, when the index lists
 * the entries in the order the scan finds them (status writes it so: readdir's order is the same
 * while a folder is unchanged), with no lookup per path; else by path, through the scan's Map.
 */
import { TYPE_DIR, hasRecordedStat, type StatIndex } from '../session/stat-index.ts';
import { untouchedBy } from './content-match.ts';
import type { Observed } from './observed.ts';
import type { ScanList } from './workspace-scan.ts';

/** `unordered`: the index is not in the scan's order, so this walk cannot tell. */
export type Verdict = 'clean' | 'changed' | 'unordered';

/** One entry's columns, read into one object reused for every entry: no object per entry. */
const columns = { size: 0, mtime_ms: 0, ctime_ms: 0, ino: 0 };

/**
 * content-match.ts's rule, on the index's columns: the recorded stat, or where none was recorded the
 * archive's size and mtime, which the index keeps in the same columns (stat-index.ts).
 */
export function untouchedAt(index: StatIndex, i: number, now: Observed, fenceMs: number | undefined): boolean {
  columns.size = index.size[i]!;
  columns.mtime_ms = index.mtime[i]!;
  columns.ctime_ms = index.ctime[i]!;
  columns.ino = index.ino[i]!;
  return untouchedBy(hasRecordedStat(index, i) ? columns : undefined, columns, now, fenceMs);
}

/** Whether entry `i` is unchanged by stat as `now` (undefined: nothing at its path). */
function entryUnchanged(index: StatIndex, i: number, now: Observed | undefined, fenceMs: number | undefined): boolean {
  if ((index.flags[i]! & 3) === TYPE_DIR) return now?.kind === 'dir';
  return now !== undefined && now.kind === 'file' && untouchedAt(index, i, now, fenceMs);
}

/** A root entry ("./"): the workspace itself, always there. */
export function isRoot(index: StatIndex, i: number): boolean {
  return index.paths[i] === '' && (index.flags[i]! & 3) === TYPE_DIR;
}

/**
 * Whether folder `k` of the list, not an entry, holds something: the scan lists a folder's items
 * right after it, and as every file on disk is an entry, what it holds implies it.
 */
function holdsSomething(list: ScanList, k: number): boolean {
  const next = list.paths[k + 1];
  const folder = list.paths[k]!;
  return next !== undefined && next.length > folder.length && next[folder.length] === '/' && next.startsWith(folder);
}

/** The verdict walking the index and the list side by side. */
export function verdictInOrder(index: StatIndex, list: ScanList, fenceMs: number | undefined): Verdict {
  if (list.badNames.length > 0) return 'changed';
  const { paths, seen } = list;
  let j = 0;
  let dirItems = 0;
  for (let k = 0; k < paths.length; k++) {
    while (j < index.count && isRoot(index, j)) j++;
    const now = seen[k]!;
    if (now.kind === 'dir') dirItems++;
    if (j < index.count && index.paths[j] === paths[k]) {
      if (!entryUnchanged(index, j, now, fenceMs)) return 'changed';
      j++;
    } else if (now.kind !== 'dir' || !holdsSomething(list, k)) return 'unordered';
  }
  while (j < index.count && isRoot(index, j)) j++;
  if (j !== index.count) return 'unordered';
  // A folder swapped for something else mid-scan is an item the scan did not enter: the long way tells it.
  return dirItems === list.folders.length ? 'clean' : 'changed';
}

/**
 * The verdict by path, whatever the index's order, walking the list with a Map of the index's
 * paths; when clean, also the index's entries in the list's order (to write it so for the next
 * status). Two entries of one path (a hand-edited manifest) leave one unmatched: not clean.
 */
export function verdictByPath(
  index: StatIndex,
  list: ScanList,
  fenceMs: number | undefined,
): { clean: false } | { clean: true; order: number[] } {
  if (list.badNames.length > 0) return { clean: false };
  const at = new Map<string, number>();
  const order: number[] = [];
  for (let i = 0; i < index.count; i++) {
    if (isRoot(index, i)) order.push(i);
    else at.set(index.paths[i]!, i);
  }
  let dirItems = 0;
  for (let k = 0; k < list.paths.length; k++) {
    const now = list.seen[k]!;
    if (now.kind === 'dir') dirItems++;
    const i = at.get(list.paths[k]!);
    if (i === undefined) {
      if (now.kind !== 'dir' || !holdsSomething(list, k)) return { clean: false };
    } else if (entryUnchanged(index, i, now, fenceMs)) order.push(i);
    else return { clean: false };
  }
  // Every entry matched once (the list's paths are distinct), and every folder entered.
  if (order.length !== index.count || dirItems !== list.folders.length) return { clean: false };
  return { clean: true, order };
}
