/**
 * The checks a lazy open makes of an archive's index (lazy-entries.ts), as an
 * eager open makes them while it plans: two entries at one path, a file where
 * a folder is needed, entries sharing bytes, and the entries the workspace's
 * folder cannot hold (they stay in the zip).
 */
import { ZipfsError, type Refuse } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import { foldCase, windowsNameProblem } from '../rules/platform-names.ts';
import type { PackedDirectory } from '../zip/index.ts';
import type { ItemType } from '../rules/item-type.ts';

/** What the checks read of an archive's index (lazy-entries.ts, LazyEntries). */
export interface EntryIndex {
  readonly directory: PackedDirectory;
  readonly paths: readonly string[];
  readonly count: number;
  type(index: number): ItemType;
  indexOf(relative: string): number;
  /** Entry indexes in path order. */
  sorted(): Uint32Array;
}

/**
 * Whether `own`, whose last `/` is at `slash`, lies directly in `folder`: compared in place, as a slice per path would
 * cost a string per entry.
 */
function inFolder(own: string, slash: number, folder: string): boolean {
  return slash === folder.length && own.startsWith(folder);
}

/** Two entries at one path, or a file where another entry needs a folder: as open refuses them. */
export function checkClashes(lazy: EntryIndex, refuse: Refuse): void {
  const order = lazy.sorted();
  const name = (index: number) => lazy.directory.entry(index).name;
  // Indexed loops, no destructuring or iterators: a million iterations must not allocate.
  for (let k = 1; k < order.length; k++) {
    const a = order[k - 1]!;
    const b = order[k]!;
    if (lazy.paths[a] === lazy.paths[b]) {
      refuse(
        new ZipfsError(
          'ZIP_INVALID',
          `Entries ${quoted(name(a))} and ${quoted(name(b))} claim the same path (${quoted(lazy.paths[a]!)}); ` +
            `one would silently replace the other, so the archive was not opened.`,
        ),
      );
    }
  }
  let lastParent = '';
  for (let k = 0; k < order.length; k++) {
    const index = order[k]!;
    const own = lazy.paths[index]!;
    const slash = own.lastIndexOf('/');
    if (slash < 0 || inFolder(own, slash, lastParent)) continue;
    const parent = own.slice(0, slash);
    lastParent = parent;
    // Every folder on the way, not only the nearest: a file "a" breaks "a/b/c" too.
    for (let cut = parent.length; cut > 0; cut = parent.lastIndexOf('/', cut - 1)) {
      const holder = lazy.indexOf(parent.slice(0, cut));
      if (holder >= 0 && lazy.type(holder) !== 'dir') {
        refuse(
          new ZipfsError(
            'ZIP_INVALID',
            `Entry ${quoted(name(holder))} is a file, but ${quoted(name(index))} needs it to be a folder; the ` +
              `archive cannot be laid out as files, so it was not opened.`,
          ),
        );
      }
      if (cut <= 0) break;
    }
  }
}

/**
 * Entries whose bytes overlap (the zip-bomb construction), from the directory alone; each entry's own headers are
 * checked when it is read.
 */
export function checkOverlaps(
  directory: PackedDirectory,
  starts: Float64Array,
  ends: Float64Array,
  paths: string[],
  refuse: Refuse,
): void {
  const order = directory.byOffset();
  for (let k = 0; k < order.length; k++) {
    const index = order[k]!;
    const limit = k + 1 < order.length ? starts[order[k + 1]!]! : directory.centralStart;
    if (ends[index]! > limit) {
      const into = k + 1 < order.length ? `into entry ${quoted(paths[order[k + 1]!]!)}` : 'into the central directory';
      refuse(
        new ZipfsError(
          k + 1 < order.length ? 'ZIP_BOMB_DETECTED' : 'ZIP_INVALID',
          `Entry ${quoted(paths[index]!)} has data running ${ends[index]! - limit} bytes ` +
            `${into}${k + 1 < order.length ? ' (overlapping entries, a zip-bomb construction)' : ''}; the archive ` +
            `was refused.`,
        ),
      );
    }
  }
}

/** Entries the workspace's folder cannot hold under their own names: noted, so they stay in the zip. */
export function platformMisfits(lazy: EntryIndex, rules: FolderRules): { index: number; reason: string }[] {
  const found: { index: number; reason: string }[] = [];
  if (rules.windowsNames) {
    for (let i = 0; i < lazy.count; i++) {
      const problem = lazy.paths[i]!.split('/')
        .map(windowsNameProblem)
        .find((p) => p !== undefined);
      if (problem) found.push({ index: i, reason: `its name ${problem}` });
    }
  }
  if (rules.caseInsensitive) {
    const seen = new Map<string, number>();
    const order = lazy.sorted();
    for (let k = 0; k < order.length; k++) {
      const index = order[k]!;
      if (lazy.type(index) === 'dir' || lazy.paths[index] === '') continue;
      const key = foldCase(lazy.paths[index]!);
      const other = seen.get(key);
      if (other === undefined) {
        seen.set(key, index);
        continue;
      }
      const reason =
        `its path differs only in case from ${quoted(lazy.paths[other]!)}, and the workspace's folder ` +
        `does not tell case apart`;
      found.push(
        { index, reason },
        {
          index: other,
          reason:
            `its path differs only in case from ${quoted(lazy.paths[index]!)}, and the workspace's folder ` +
            `does not tell case apart`,
        },
      );
    }
  }
  return found.sort((a, b) => a.index - b.index);
}
