/**
 * A session's manifest as the rest of zipfs reads it: its lines (manifest-lines.ts) and, in a lazy
 * session, the whole directory (central.bin), loaded when first asked for and checked against
 * the lines then (the base, every entry whatever the kind, is the workspace's: workspace/base.ts).
 */
import path from 'node:path';
import { sessionDamaged, type EntryRecord, type ManifestLines } from './manifest.ts';
import { readManifestLines } from './manifest-lines.ts';
import type { LazyEntries } from './lazy-entries.ts';
import { lazyEntriesAt } from './lazy-session.ts';

export interface Manifest extends ManifestLines {
  /** A lazy session's whole directory, loaded when first asked for (lazy-entries.ts). */
  lazy?: () => LazyEntries;
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
  return {
    session,
    entries,
    lazy: () => {
      const lazy = lazyEntriesAt(dir, session);
      if (checked !== lazy) assertTrackedMatch(dir, entries, (checked = lazy));
      return lazy;
    },
  };
}

/** Every line of a lazy session's manifest has the path and type of the directory's entry at its index. */
export function assertTrackedMatch(dir: string, entries: readonly EntryRecord[], lazy: LazyEntries): void {
  for (let i = 0; i < entries.length; i++) {
    const { index, path, type } = entries[i]!;
    if (index >= lazy.count)
      throw sessionDamaged(
        dir,
        `its manifest.jsonl lists entry index ${index}, but its central.bin has ${lazy.count} entries`,
      );
    if (lazy.paths[index] !== path || lazy.type(index) !== type) {
      throw sessionDamaged(
        dir,
        `line of entry ${index} in its manifest.jsonl says ${JSON.stringify(path)} (${type}), but the session's ` +
          `directory has ${JSON.stringify(lazy.paths[index])} (${lazy.type(index)}) there`,
      );
    }
  }
}

/** Indexes of the entries the manifest lists: extracted, or deleted without ever being extracted. */
export function trackedIndexes(manifest: ManifestLines): Set<number> {
  return new Set(manifest.entries.map((entry) => entry.index));
}
