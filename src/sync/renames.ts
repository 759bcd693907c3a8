/**
 * Renames as renames. A path that disappeared and another that appeared with
 * the same bytes is one entry that moved (`mv`, an IDE's refactoring, a
 * renamed wheel .dist-info folder), not a deletion plus an addition: status
 * and diff say so, and sync writes the entry where the old one stood in the
 * archive (a wheel's RECORD stays last, an EPUB's order holds).
 *
 * Pairs are found by content: same size, then same CRC-32 (each added file
 * is read only when a deleted one has its size). A folder that moved is
 * inferred from the files that moved unchanged with it, and then a file of
 * the old folder and one of the same name in the new folder are a rename
 * even if the content changed too (RECORD, whose hashes change with the
 * rename), and the folder's own entry moves with them.
 */
import path from 'node:path';
import type { EntryRecord } from '../session/manifest.ts';
import type { Observed } from './observed.ts';

export interface Rename {
  /** The manifest entry that moved. */
  index: number;
  from: string;
  to: string;
  /** The content changed as well (a file of a moved folder). */
  modified: boolean;
}

interface Addition {
  path: string;
  observed: Observed;
}

export function findRenames(
  deleted: readonly EntryRecord[],
  additions: readonly Addition[],
  crcOf: (relative: string) => number | undefined,
): Rename[] {
  const renames: Rename[] = [];
  const taken = new Set<string>(); // added paths already paired
  const bySize = new Map<number, EntryRecord[]>();
  for (const entry of deleted)
    if (entry.type !== 'dir') bySize.set(entry.size, [...(bySize.get(entry.size) ?? []), entry]);
  const paired = new Set<number>();

  for (const addition of additions) {
    if (addition.observed.kind !== 'file') continue;
    const sameSize = bySize
      .get(addition.observed.size)
      ?.filter((entry) => !paired.has(entry.index) && entry.type === 'file');
    if (!sameSize?.length) continue;
    const crc = crcOf(addition.path);
    if (crc === undefined) continue;
    // Of several with these bytes, the one with the same name (moved to another folder) first.
    const match =
      sameSize.find(
        (entry) => entry.crc32 === crc && path.posix.basename(entry.path) === path.posix.basename(addition.path),
      ) ?? sameSize.find((entry) => entry.crc32 === crc);
    if (!match) continue;
    paired.add(match.index);
    taken.add(addition.path);
    renames.push({ index: match.index, from: match.path, to: addition.path, modified: false });
  }

  // Folders that moved, as the unchanged files that moved with them show: old folder -> new folder.
  const moved = new Map<string, string>();
  for (const rename of renames) {
    const [fromDir, toDir] = [path.posix.dirname(rename.from), path.posix.dirname(rename.to)];
    // The root is no folder that moves: a file moved into or out of it says nothing of its neighbours.
    if (
      fromDir !== toDir &&
      fromDir !== '.' &&
      toDir !== '.' &&
      path.posix.basename(rename.from) === path.posix.basename(rename.to)
    )
      moved.set(fromDir, toDir);
  }
  if (moved.size === 0) return renames;
  const added = new Map(additions.map((addition) => [addition.path, addition.observed]));
  for (const entry of deleted) {
    if (paired.has(entry.index)) continue;
    const to = entry.type === 'dir' ? moved.get(entry.path) : movedPath(moved, entry.path);
    const now = to === undefined || taken.has(to) ? undefined : added.get(to);
    if (!now || (entry.type === 'dir') !== (now.kind === 'dir') || now.kind === 'special') continue;
    paired.add(entry.index);
    taken.add(to!);
    renames.push({ index: entry.index, from: entry.path, to: to!, modified: entry.type !== 'dir' });
  }
  return renames;
}

/** Where a file of a moved folder went: the same name in the folder it moved to. */
function movedPath(moved: ReadonlyMap<string, string>, from: string): string | undefined {
  const dir = moved.get(path.posix.dirname(from));
  return dir === undefined ? undefined : `${dir}/${path.posix.basename(from)}`;
}
