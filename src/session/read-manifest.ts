/**
 * A session's manifest as the rest of zipfs reads it: its lines (manifest-lines.ts) and, in a lazy
 * session, the whole directory (central.bin), loaded when first asked for and checked against
 * the lines then (the base, every entry whatever the kind, is the workspace's: workspace/base.ts).
 */
import path from 'node:path';
import { sessionDamaged, type EntryRecord, type ManifestLines } from './manifest.ts';
import { readManifestLines } from './manifest-lines.ts';
import { placeOf, type LazyEntries } from './lazy-entries.ts';
import { centralAt, lazyEntriesAt } from './lazy-session.ts';
import type { PackedDirectory } from '../zip/index.ts';
import type { ItemType } from '../rules/item-type.ts';

export interface Manifest extends ManifestLines {
  /** A lazy session's whole directory, loaded when first asked for (lazy-entries.ts). */
  lazy?: () => LazyEntries;
  /**
   * A lazy session's directory, read and checked with its lines, no entry's path placed but theirs: what a sync that
   * needs no index trusts (workspace/lazy-base.ts, verify).
   */
  central?: () => PackedDirectory;
}

/** `stamp`: with the stamp of the text read (manifest-lines.ts). */
export function readManifest(manifestPath: string, options: { stamp?: boolean } = {}): Manifest {
  const lines = readManifestLines(manifestPath, options);
  const { session, entries } = lines;
  if (!session.lazy) return lines;
  const dir = path.dirname(manifestPath);
  // Its lines are checked against the directory when it is loaded: status, which needs only the lines, does not pay for
  // it.
  let checked: LazyEntries | undefined;
  let checkedCentral: PackedDirectory | undefined;
  return {
    session,
    entries,
    lazy: () => {
      const lazy = lazyEntriesAt(dir, session);
      if (checked !== lazy) assertTrackedMatch(dir, entries, (checked = lazy));
      return lazy;
    },
    central: () => {
      const directory = centralAt(dir, session);
      if (checkedCentral !== directory) {
        const place = (index: number) => placeOf(directory, index);
        assertLinesMatch(dir, entries, directory.count, place);
        checkedCentral = directory;
      }
      return directory;
    },
  };
}

/** Every line of a lazy session's manifest has the path and type of the directory's entry at its index. */
export function assertTrackedMatch(dir: string, entries: readonly EntryRecord[], lazy: LazyEntries): void {
  assertLinesMatch(dir, entries, lazy.count, (index) => ({ path: lazy.paths[index]!, type: lazy.type(index) }));
}

/** assertTrackedMatch against `count` entries placed by `placed`: the lines' own, each once. */
function assertLinesMatch(
  dir: string,
  entries: readonly EntryRecord[],
  count: number,
  placed: (index: number) => { path: string; type: ItemType },
): void {
  for (let i = 0; i < entries.length; i++) {
    const { index, path, type } = entries[i]!;
    if (index >= count)
      throw sessionDamaged(
        dir,
        `its manifest.jsonl lists entry index ${index}, but its central.bin has ${count} entries`,
      );
    const there = placed(index);
    if (there.path !== path || there.type !== type) {
      throw sessionDamaged(
        dir,
        `line of entry ${index} in its manifest.jsonl says ${JSON.stringify(path)} (${type}), but the session's ` +
          `directory has ${JSON.stringify(there.path)} (${there.type}) there`,
      );
    }
  }
}

/** Indexes of the entries the manifest lists: extracted, or deleted without ever being extracted. */
export function trackedIndexes(manifest: ManifestLines): Set<number> {
  return new Set(manifest.entries.map((entry) => entry.index));
}
