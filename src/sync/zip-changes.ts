/**
 * What changed in the zip itself since a session's base (the manifest: the
 * zip as open or the last sync left it), when another session, an agent or a
 * program wrote it meanwhile: entries added, modified and deleted, by name.
 * Status shows it as git shows a branch that is behind; sync's conflict names
 * it, and what `force` would discard.
 */
import { ZipfsError, isSystemError } from '../errors.ts';
import type { EntryRecord, Manifest } from '../session/manifest.ts';
import { FileSource, readCentralDirectory, type CentralDirectory, type ZipEntry } from '../zip/index.ts';

export interface ZipChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** Whether an entry's content differs between a manifest record and an entry of a zip (same name). */
export function entryChanged(record: EntryRecord, entry: ZipEntry): boolean {
  return record.crc32 !== entry.crc32 || record.size !== entry.uncompressedSize || record.method !== entry.method;
}

/**
 * `read` over the zip at `zipPath` and its central directory; undefined when there is no zip to
 * read there (gone, not readable, damaged): the caller says so, as status and sync each do.
 */
export function readCurrentZip<T>(zipPath: string, read: (source: FileSource, directory: CentralDirectory) => T): T | undefined {
  let source: FileSource;
  try {
    source = new FileSource(zipPath);
  } catch {
    return undefined;
  }
  try {
    return read(source, readCentralDirectory(source));
  } catch (error) {
    if (error instanceof ZipfsError || isSystemError(error)) return undefined;
    throw error;
  } finally {
    source.close();
  }
}

/** The zip's changes since the base; undefined when it cannot be read as a zip (gone, damaged: the caller says so). */
export function zipChangesSince({ entries }: Manifest, zipPath: string): ZipChanges | undefined {
  return readCurrentZip(zipPath, (_source, { entries: now }) => {
    const base = new Map(entries.map((entry) => [entry.name, entry]));
    const changes: ZipChanges = { added: [], modified: [], deleted: [] };
    const seen = new Set<string>();
    for (const entry of now) {
      seen.add(entry.name);
      const was = base.get(entry.name);
      if (!was) changes.added.push(entry.name);
      else if (entryChanged(was, entry)) changes.modified.push(entry.name);
    }
    for (const entry of entries) if (!seen.has(entry.name)) changes.deleted.push(entry.name);
    for (const list of Object.values(changes)) list.sort();
    return changes;
  });
}

/** "1 added (NEWFILE.txt), 2 modified (a, b), 0 deleted": for messages, a few names each. */
export function describeZipChanges(changes: ZipChanges): string {
  if (changes.added.length + changes.modified.length + changes.deleted.length === 0) return 'rewritten with the same entries (its bytes changed: a comment, an order, trailing data)';
  const part = (list: string[], what: string) => `${list.length} ${what}${list.length > 0 ? ` (${list.slice(0, 3).join(', ')}${list.length > 3 ? ', ...' : ''})` : ''}`;
  return [part(changes.added, 'added'), part(changes.modified, 'modified'), part(changes.deleted, 'deleted')].join(', ');
}
