/**
 * What changed in the zip itself since a session's base (the manifest: the
 * zip as open or the last sync left it), when another session, an agent or a
 * program wrote it meanwhile: entries added, modified and deleted, by name.
 * Status shows it as git shows a branch that is behind; sync's conflict names
 * it, and what `force` would discard.
 */
import { ZipfsError } from '../errors.ts';
import type { Manifest } from '../session/manifest.ts';
import { FileSource, readCentralDirectory } from '../zip/index.ts';

export interface ZipChanges {
  added: string[];
  modified: string[];
  deleted: string[];
}

/** The zip's changes since the base; undefined when it cannot be read as a zip (gone, damaged: the caller says so). */
export function zipChangesSince({ entries }: Manifest, zipPath: string): ZipChanges | undefined {
  let source: FileSource;
  try {
    source = new FileSource(zipPath);
  } catch {
    return undefined;
  }
  try {
    const now = readCentralDirectory(source).entries;
    const base = new Map(entries.map((entry) => [entry.name, entry]));
    const changes: ZipChanges = { added: [], modified: [], deleted: [] };
    const seen = new Set<string>();
    for (const entry of now) {
      seen.add(entry.name);
      const was = base.get(entry.name);
      if (!was) changes.added.push(entry.name);
      else if (was.crc32 !== entry.crc32 || was.size !== entry.uncompressedSize || was.method !== entry.method) changes.modified.push(entry.name);
    }
    for (const entry of entries) if (!seen.has(entry.name)) changes.deleted.push(entry.name);
    for (const list of Object.values(changes)) list.sort();
    return changes;
  } catch (error) {
    if (error instanceof ZipfsError) return undefined;
    throw error;
  } finally {
    source.close();
  }
}

/** "1 added (NEWFILE.txt), 2 modified (a, b), 0 deleted": for messages, a few names each. */
export function describeZipChanges(changes: ZipChanges): string {
  if (changes.added.length + changes.modified.length + changes.deleted.length === 0) return 'rewritten with the same entries (its bytes changed: a comment, an order, trailing data)';
  const part = (list: string[], what: string) => `${list.length} ${what}${list.length > 0 ? ` (${list.slice(0, 3).join(', ')}${list.length > 3 ? ', ...' : ''})` : ''}`;
  return [part(changes.added, 'added'), part(changes.modified, 'modified'), part(changes.deleted, 'deleted')].join(', ');
}
