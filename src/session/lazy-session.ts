/**
 * A lazy session's directory as the session store keeps it (central.bin), loaded
 * once per file and shared by the calls of a warm server; and how many of its
 * entries are not extracted. The reading of entries is the lazy workspace's
 * (workspace/lazy-reader.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { CENTRAL_FILE, loadCentral, loadLazyEntries, type LazyEntries } from './lazy-entries.ts';
import type { PackedDirectory } from '../zip/index.ts';
import { sessionDamaged, type SessionRecord } from './manifest.ts';
import { readManifestLines } from './manifest-lines.ts';
import type { Session } from './session-store.ts';

/**
 * One session's entries, kept while its central.bin is the same file: a warm MCP server indexes a million entries once,
 * not per call.
 */
let cached: { key: string; lazy: LazyEntries } | undefined;
/** Its directory alone, read and checked but no path placed (a sync that needs no index: centralAt). */
let cachedCentral: { key: string; directory: PackedDirectory } | undefined;

/** The session's entries when it is lazy (loaded once per central.bin), or undefined for an eager session. */
export function lazyEntries(session: Session): LazyEntries | undefined {
  return session.record.lazy ? lazyEntriesAt(session.dir, session.record) : undefined;
}

/** What names the central.bin in `dir` as this record describes it: the same key, the same entries. */
function centralKey(dir: string, record: SessionRecord): string {
  const file = path.join(dir, CENTRAL_FILE);
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  if (!stats) throw sessionDamaged(dir, `it is lazy but its ${CENTRAL_FILE} is missing`);
  // The record's facts too: the same central.bin is checked again against another record (lazy-integrity.ts).
  const { entries, base_offset, central_start, central_crc32 } = record.lazy!;
  return [file, stats.ino, stats.size, stats.mtimeMs, entries, base_offset, central_start, central_crc32].join(':');
}

/** The entries of the lazy session in `dir`. */
export function lazyEntriesAt(dir: string, record: SessionRecord): LazyEntries {
  const key = centralKey(dir, record);
  if (cached?.key !== key) {
    const read = cachedCentral?.key === key ? cachedCentral.directory : undefined;
    cached = { key, lazy: loadLazyEntries(dir, record, read) };
  }
  cachedCentral = undefined;
  return cached.lazy;
}

/** The entries of the lazy session in `dir` if they are loaded already (a warm server's), else undefined. */
export function loadedLazyEntries(dir: string, record: SessionRecord): LazyEntries | undefined {
  return cached?.key === centralKey(dir, record) ? cached.lazy : undefined;
}

/** The directory of the lazy session in `dir`, checked against its record, without placing every entry's path. */
export function centralAt(dir: string, record: SessionRecord): PackedDirectory {
  const key = centralKey(dir, record);
  if (cached?.key === key) return cached.lazy.directory;
  if (cachedCentral?.key !== key) cachedCentral = { key, directory: loadCentral(dir, record) };
  return cachedCentral.directory;
}

/** Lets the cached entries go (a sync's check indexes the new archive: two at once would double its peak). */
export function forgetLazyEntries(): void {
  cached = undefined;
  cachedCentral = undefined;
}

/**
 * How many of a lazy session's files are not extracted: entries that are not folders, as file_count counts them, so
 * a lazy open answers the same number twice (issue 31); folders, stored or implied, are counted in neither. The
 * record's file_count (countEntries, at open and each sync) less the files the manifest lists: no entry placed (an
 * index of a million paths was most of a lazy open's time at a million entries).
 */
export function notExtractedCount(session: Session): number {
  if (!session.record.lazy) return 0;
  let listed = 0;
  for (const entry of readManifestLines(session.manifest).entries) if (entry.type !== 'dir') listed++;
  return Math.max(0, session.record.file_count - listed);
}
