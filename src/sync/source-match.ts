/**
 * The source zip's entries against what a sync writes: which entry of the source a
 * manifest record still is (for a raw copy), and, after a forced sync, what the new
 * archive changed against the zip it replaced.
 */
import type { EntryRecord } from '../session/manifest.ts';
import type { PackedDirectory, ZipEntry } from '../zip/index.ts';
import type { SyncCounts } from './sync-types.ts';
import { entryChanged } from './zip-changes.ts';

/**
 * Modified, added and deleted entries of a new archive against the zip it replaces, by name (renamed ones' old names
 * aside).
 */
export function againstReplaced(
  directory: PackedDirectory,
  written: EntryRecord[],
  renamedFrom: ReadonlySet<string>,
): SyncCounts {
  const before = new Map<string, ZipEntry>();
  for (let i = 0; i < directory.count; i++) {
    const entry = directory.entry(i);
    before.set(entry.name, entry);
  }
  let modified = 0;
  let added = 0;
  for (const entry of written) {
    const was = before.get(entry.name);
    before.delete(entry.name);
    if (!was) added++;
    else if (entryChanged(entry, was)) modified++;
  }
  const deleted = [...before.keys()].filter((name) => !renamedFrom.has(name)).length;
  return { files_modified: modified, files_added: added, files_deleted: deleted };
}

/**
 * The source's entry for a manifest record, if the source still holds it
 * unchanged: at the same index normally, found by name when a forced sync
 * writes over a source that was rewritten meanwhile.
 */
export function findOriginal(
  directory: PackedDirectory,
  byName: () => Map<string, number>,
  record: EntryRecord,
): ZipEntry | undefined {
  const same = (e: ZipEntry | undefined) =>
    e !== undefined &&
    e.name === record.name &&
    e.crc32 === record.crc32 &&
    e.compressedSize === record.compressed_size &&
    e.method === record.method;
  const byIndex = record.index < directory.count ? directory.entry(record.index) : undefined;
  if (same(byIndex)) return byIndex;
  const at = byName().get(record.name);
  const named = at === undefined ? undefined : directory.entry(at);
  return same(named) ? named : undefined;
}

/**
 * findOriginal for a sync over the very directory the manifest describes (the source's hash matched the session's):
 * entry `record.index` read in place, with no entry parsed. Its index when it is the record's entry, else undefined.
 */
export function originalInPlace(directory: PackedDirectory, record: EntryRecord): number | undefined {
  const index = record.index;
  if (index >= directory.count) return undefined;
  if (directory.field32(index, 16) !== record.crc32) return undefined;
  if (directory.compressedSize(index) !== record.compressed_size || directory.method(index) !== record.method)
    return undefined;
  const plain = directory.hasPlainName(index, record.name);
  return (plain ?? directory.entry(index).name === record.name) ? index : undefined;
}
