/**
 * What changed in the zip itself since a session's base (the manifest: the
 * zip as open or the last sync left it), when another session, an agent or a
 * program wrote it meanwhile: entries added, modified and deleted. Entries
 * are compared by the workspace path open gives them (entry-paths.ts), not by
 * their raw names: `d\b.txt` or `./d/b.txt` written by another tool is the
 * same path as `d/b.txt`, so a respelled name is no change. An entry whose
 * path stays but which turned from a file into a folder (or back) is the old
 * one deleted and a new one added. Status shows these as git shows a branch
 * that is behind; sync's conflict names them, and the merge (merge-plan.ts)
 * is planned from the same comparison, so what status lists is what a merge
 * takes in.
 */
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { entryPath } from '../rules/entry-paths.ts';
import type { ItemType } from '../rules/item-type.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { FileSource, readCentralDirectory, type CentralDirectory, type CodePage, type ZipEntry } from '../zip/index.ts';

export interface ZipChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** An entry of the zip as it is now, at the workspace path open gives it. */
export interface PlacedEntry {
  entry: ZipEntry;
  path: string;
  type: ItemType;
}

/** One entry's fate on the zip's side since the base, by path. */
export type ZipSideChange =
  /** The same path, kind and content (its raw name may be spelled otherwise now). */
  | { kind: 'kept'; record: EntryRecord; now: PlacedEntry }
  | { kind: 'modified'; record: EntryRecord; now: PlacedEntry }
  | { kind: 'added'; now: PlacedEntry }
  | { kind: 'deleted'; record: EntryRecord };

/** Whether an entry's content differs between a manifest record and an entry of a zip (one path). */
export function entryChanged(record: EntryRecord, entry: ZipEntry): boolean {
  return record.crc32 !== entry.crc32 || record.size !== entry.uncompressedSize || record.method !== entry.method;
}

/**
 * The zip's side against the base, by path: the zip's entries in its current order (kept,
 * modified or added), then the base's entries it no longer has, in the base's order. `now`
 * holds one entry per path (the zip passed open's checks, or placeLeniently made it so).
 */
export function zipSideChanges(base: readonly EntryRecord[], now: readonly PlacedEntry[]): ZipSideChange[] {
  const byPath = new Map<string, EntryRecord>();
  for (const record of base) byPath.set(record.path, record);
  const changes: ZipSideChange[] = [];
  const matched = new Set<EntryRecord>();
  for (const placed of now) {
    const record = byPath.get(placed.path);
    // A file that became a folder (or back) at one path: the old entry went, a new one came.
    if (!record || (record.type === 'dir') !== (placed.type === 'dir')) {
      changes.push({ kind: 'added', now: placed });
      continue;
    }
    matched.add(record);
    changes.push({
      kind: entryChanged(record, placed.entry) || record.type !== placed.type ? 'modified' : 'kept',
      record,
      now: placed,
    });
  }
  for (const record of base) if (!matched.has(record)) changes.push({ kind: 'deleted', record });
  return changes;
}

/** A path as status and from_zip show it: a folder ends in `/`. */
function shown(path: string, type: ItemType): string {
  return type === 'dir' ? `${path}/` : path;
}

/** The changes as lists of shown paths, each sorted. */
export function changeLists(changes: readonly ZipSideChange[]): ZipChanges {
  const lists: ZipChanges = { added: [], modified: [], deleted: [] };
  for (const change of changes) {
    if (change.kind === 'added') lists.added.push(shown(change.now.path, change.now.type));
    else if (change.kind === 'modified') lists.modified.push(shown(change.now.path, change.now.type));
    else if (change.kind === 'deleted') lists.deleted.push(shown(change.record.path, change.record.type));
  }
  for (const list of Object.values(lists)) list.sort();
  return lists;
}

/** `A path`, `M path`, `D path` lines, as status's zip_changed and a merge's from_zip list them. */
export function changeLines(changes: ZipChanges): string[] {
  return [
    ...changes.added.map((p) => `A ${p}`),
    ...changes.modified.map((p) => `M ${p}`),
    ...changes.deleted.map((p) => `D ${p}`),
  ];
}

/**
 * The zip's entries at their paths, for a look that refuses nothing (status): a name open
 * would refuse, or a second entry at a path already taken, keeps its raw name, so it is
 * listed as added and the merge's own checks name it.
 */
export function placeLeniently(entries: readonly ZipEntry[]): PlacedEntry[] {
  const taken = new Set<string>();
  return entries.map((entry) => {
    let path = entry.name;
    let isDirectory = entry.isDirectory;
    try {
      ({ path, isDirectory } = entryPath(entry.name));
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
    }
    if (taken.has(path)) path = entry.name;
    taken.add(path);
    return { entry, path, type: isDirectory || entry.isDirectory ? 'dir' : entry.isSymlink ? 'symlink' : 'file' };
  });
}

/**
 * `read` over the zip at `zipPath` and its central directory; undefined when there is no zip to
 * read there (gone, not readable, damaged): the caller says so, as status and sync each do.
 */
export function readCurrentZip<T>(
  zipPath: string,
  read: (source: FileSource, directory: CentralDirectory) => T,
  nameEncoding?: CodePage,
): T | undefined {
  let source: FileSource;
  try {
    source = new FileSource(zipPath);
  } catch {
    return undefined;
  }
  try {
    return read(source, readCentralDirectory(source, nameEncoding));
  } catch (error) {
    if (error instanceof ZipfsError || isSystemError(error)) return undefined;
    throw error;
  } finally {
    source.close();
  }
}

/**
 * The zip's changes since the base (names read in the session's `nameEncoding`); undefined when it cannot be read as
 * a zip (gone, damaged: the caller says so).
 */
export function zipChangesSince(
  entries: readonly EntryRecord[],
  zipPath: string,
  nameEncoding?: CodePage,
): ZipChanges | undefined {
  return readCurrentZip(
    zipPath,
    (_source, directory) => changeLists(zipSideChanges(entries, placeLeniently(directory.entries))),
    nameEncoding,
  );
}

/** "1 added (NEWFILE.txt), 2 modified (a, b), 0 deleted": for messages, a few names each. */
export function describeZipChanges(changes: ZipChanges): string {
  if (changes.added.length + changes.modified.length + changes.deleted.length === 0)
    return (
      'rewritten with the same entries (its bytes changed: a comment, an order, trailing data, the spelling ' +
      'of a name)'
    );
  const part = (list: string[], what: string) =>
    `${list.length} ${what}` +
    `${list.length > 0 ? ` (${list.slice(0, 3).join(', ')}${list.length > 3 ? ', ...' : ''})` : ''}`;
  return [part(changes.added, 'added'), part(changes.modified, 'modified'), part(changes.deleted, 'deleted')].join(
    ', ',
  );
}
