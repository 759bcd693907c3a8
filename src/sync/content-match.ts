/**
 * Whether a file on disk still holds an entry's content: by stat alone when
 * zipfs's recorded stat (or open's ctime fence) proves it untouched, else by
 * its CRC-32, read in chunks.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { openRegularFile } from '../base/regular-file.ts';
import type { Beneath } from '../files/beneath.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { crc32 } from '../zip/codec.ts';
import type { Observed } from './observed.ts';
import { readLinkTarget } from './workspace-scan.ts';

/**
 * Whether the stat alone proves a file untouched: the stat recorded when zipfs
 * last wrote or read it (after a sync), or else, right after open, the archive's
 * size and mtime with a ctime before the fence open set (ctime-fence.ts). Any
 * write, utimes, rename or copy moves ctime forward, and nothing can set it back.
 */
export function untouched(entry: EntryRecord, now: Observed, fenceMs: number | undefined): boolean {
  return untouchedBy(entry.extracted, entry, now, fenceMs);
}

/** The stat zipfs recorded of a file. */
export interface RecordedStat {
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
}

/**
 * `untouched`'s rule on its parts, for what holds them other than a record (the stat index's columns,
 * stat-verdict.ts): the stat `recorded`, else the archive's size and mtime (`archived`) under the fence.
 */
export function untouchedBy(
  recorded: RecordedStat | undefined,
  archived: { size: number; mtime_ms: number },
  now: Observed,
  fenceMs: number | undefined,
): boolean {
  if (recorded)
    return (
      recorded.size === now.size &&
      recorded.mtime_ms === now.mtime_ms &&
      recorded.ctime_ms === now.ctime_ms &&
      recorded.ino === now.ino
    );
  return (
    fenceMs !== undefined &&
    now.size === archived.size &&
    Math.abs(now.mtime_ms - archived.mtime_ms) < 1 &&
    now.ctime_ms < fenceMs
  );
}

const CRC_CHUNK_BYTES = 1 << 20;
let crcChunk: Buffer | undefined;

/** CRC-32 of a file, read in chunks (one buffer, reused) so a large file costs no more memory than one chunk. */
function fileCrc(at: string, relative: string): number {
  const { fd } = openRegularFile(at, relative);
  const chunk = (crcChunk ??= Buffer.allocUnsafe(CRC_CHUNK_BYTES));
  let crc = 0;
  try {
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; ) crc = crc32(chunk.subarray(0, n), crc);
  } finally {
    fs.closeSync(fd);
  }
  return crc;
}

/**
 * CRC-32 of a workspace file (rename detection, merge); undefined when it cannot be read (gone, swapped for a link).
 */
export function addedCrc(beneath: Beneath, relative: string): number | undefined {
  beneath.keepFoldersOf(relative);
  try {
    return fileCrc(beneath.place(relative).path, relative);
  } catch (error) {
    if (error instanceof ZipfsError || isSystemError(error)) return undefined;
    throw error;
  }
}

/**
 * Whether the content on disk is the entry's, or 'gone' when the file vanished
 * since the scan. A file swapped for a link or a special file meanwhile is a change.
 */
export function contentMatches(beneath: Beneath, entry: EntryRecord, now: Observed): boolean | 'gone' {
  beneath.keepFoldersOf(entry.path);
  try {
    const at = beneath.place(entry.path).path;
    if (now.kind === 'symlink') {
      const target = readLinkTarget(at);
      return target.length === entry.size && crc32(target) === entry.crc32;
    }
    return now.size === entry.size && fileCrc(at, entry.path) === entry.crc32;
  } catch (error) {
    if (isSystemError(error, 'ENOENT') || (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND'))
      return 'gone';
    if (error instanceof ZipfsError || isSystemError(error, 'EINVAL', 'ELOOP', 'ENOTDIR')) return false;
    throw error;
  }
}
