/**
 * The base archive: the source zip as the session last read or wrote it, kept in the session's
 * folder as `base.zip`, so a merge can read an entry as the base had it after another writer
 * replaced the zip (DESIGN.md, "Merges": a line merge needs the base's bytes). It is a hard link
 * to the zip (open) or to the new archive's temporary before its rename (sync): no copy, and the
 * bytes cost nothing while the zip or a later version of it shares them. Where no link can be
 * made (another device, a file system without links, a zip this user does not own under Linux's
 * protected_hardlinks) and on Windows (a link to a zip another program holds open could not be
 * removed with the session: platform.ts), it is a copy when the zip is at most
 * BASE_COPY_MAX_BYTES, else there is none: a copy of a large zip would cost every open its time
 * and the disk its size, for merges that may never come; without a base, entries changed on
 * both sides conflict whole, as before. A writer that changes the zip in place changes a linked
 * base too: it is checked against the manifest's fingerprint of the source (source-state.ts)
 * before any byte is read from it. The session's folder goes with close and prune, and the base
 * with it.
 */
import { ensureRanges } from '../remote/mirror.ts';
import { lazyEntries } from './lazy-session.ts';
import fs from 'node:fs';
import path from 'node:path';
import { throwRefusal } from '../base/errors.ts';
import { DeclaredSizes } from '../rules/declared-sizes.ts';
import { loadLimits, type Limits } from '../rules/limits.ts';
import { openFilesBlockRenames } from '../rules/platform.ts';
import { FileSource, readEntryData, type EntryLocation } from '../zip/index.ts';
import type { EntryRecord, SessionRecord } from './manifest.ts';
import type { Session } from './session-store.ts';
import { fingerprintOf, isNewArchive, sameArchive } from './source-state.ts';

/** The base archive's name in the session's folder. */
export const BASE_FILE = 'base.zip';

/** The largest zip kept as a copy where it cannot be linked: 16 MiB copies in about 10 ms. */
export const BASE_COPY_MAX_BYTES = 16 * 1024 * 1024;

export function basePath(dir: string): string {
  return path.join(dir, BASE_FILE);
}

/** The next base, made beside the next manifest before a sync's rename (sync/interrupted-sync.ts). */
export function nextBasePath(dir: string): string {
  return `${basePath(dir)}.next`;
}

/**
 * Keeps `file` at `at`: a hard link, else a copy when small. False when neither was made. `expected`: the file as it
 * was read (fstat of the descriptor): a link to another file (the path replaced meanwhile) is taken back.
 */
function keep(file: string, at: string, expected?: fs.Stats): boolean {
  fs.rmSync(at, { force: true });
  try {
    if (!openFilesBlockRenames()) {
      try {
        fs.linkSync(file, at);
        const made = fs.statSync(at);
        if (!expected || (made.ino === expected.ino && made.dev === expected.dev)) return true;
        fs.rmSync(at, { force: true });
        return false;
      } catch {
        // another device, no links here, or not ours to link: copied below when small
      }
    }
    const size = fs.statSync(file).size;
    if (size > BASE_COPY_MAX_BYTES || (expected && size !== expected.size)) return false;
    fs.copyFileSync(file, at, fs.constants.COPYFILE_FICLONE);
    return true;
  } catch {
    fs.rmSync(at, { force: true });
    return false; // best effort: a session without a base merges whole entries
  }
}

/** At open: keeps the zip read through `source` as the base of the session being made in `staging`. */
export function keepBaseAtOpen(zipPath: string, staging: string, source: FileSource): boolean {
  return keep(zipPath, basePath(staging), source.stats);
}

/**
 * At sync, before the rename: the new archive (`temporary`, written and flushed) as the next base; whether one was
 * made. The old base stays until placeNextBase, so a sync that fails keeps it; one killed between the two is finished
 * by the next command (sync/interrupted-sync.ts).
 */
export function draftNextBase(dir: string, temporary: string): boolean {
  return keep(temporary, nextBasePath(dir));
}

/**
 * After the rename and the manifest: the next base becomes the base; where none was made, the old base goes (it is
 * stale). Best effort: the sync is done, and a session without a base merges whole entries.
 */
export function placeNextBase(dir: string, made = true): void {
  try {
    if (made) fs.renameSync(nextBasePath(dir), basePath(dir));
    else fs.rmSync(basePath(dir), { force: true });
  } catch {
    // ENOENT: another command finished it (interrupted-sync.ts); else the base is checked before use anyway
  }
}

/** A sync that failed before its rename: the next base goes, the base stays. */
export function dropNextBase(dir: string): void {
  fs.rmSync(nextBasePath(dir), { force: true });
}

/**
 * Whether the session keeps a base that may be usable: there, a regular file of the size the manifest records. Cheap
 * (one stat); readBaseEntry checks the base's directory against the manifest before it reads a byte.
 */
export function hasBase(session: Session): boolean {
  if (isNewArchive(session.record)) return false;
  const stats = fs.statSync(basePath(session.dir), { throwIfNoEntry: false });
  return stats?.isFile() === true && stats.size === session.record.source.size;
}

/** The base opened and checked: its directory is the manifest's (size and SHA-256), or it is not used. */
export class BaseArchive {
  private constructor(
    private readonly source: FileSource,
    private readonly limits: Limits,
  ) {}

  /** The session's base, or undefined when it has none that is the archive its manifest describes. */
  static open(session: { dir: string; record: SessionRecord }, limits: Limits = loadLimits()): BaseArchive | undefined {
    if (isNewArchive(session.record)) return undefined;
    let source: FileSource;
    try {
      source = new FileSource(basePath(session.dir));
    } catch {
      return undefined;
    }
    const fingerprint = source.size === session.record.source.size ? fingerprintOf(source) : undefined;
    if (fingerprint && sameArchive(fingerprint, session.record.source)) return new BaseArchive(source, limits);
    source.close();
    return undefined;
  }

  /**
   * The entry's uncompressed bytes as the base has them, checked as open checks what it extracts (sizes and ratio
   * within open's limits, CRC-32, declared size): ZIP_BOMB_DETECTED or ZIP_INVALID otherwise.
   */
  read(record: EntryRecord): Uint8Array {
    const entry: EntryLocation = {
      name: record.name,
      flags: record.flags,
      method: record.method,
      compressedSize: record.compressed_size,
      uncompressedSize: record.size,
      crc32: record.crc32,
      localHeaderOffset: record.local_header_offset,
    };
    const sizes = new DeclaredSizes(this.limits, throwRefusal, () => record.name);
    sizes.add(record.index, record.size, record.compressed_size);
    sizes.finish();
    return readEntryData(this.source, entry).slice();
  }

  /**
   * A remote session's entry fetched into the mirror first, while the base is the mirror (the same file): a lazy
   * session's directory says where the entry ends. Nothing for a local one.
   */
  async fetch(session: Session, record: EntryRecord): Promise<void> {
    await fetchIntoMirror(session, this.source, [record]);
  }

  close(): void {
    this.source.close();
  }
}

/**
 * A remote session's entries `records` fetched into its mirror, while `source` (the base, or the zip) is the mirror
 * (the same file): the lazy directory says where each ends. Nothing for a local session, or an eager one (whole).
 */
export async function fetchIntoMirror(session: Session, source: FileSource, records: EntryRecord[]): Promise<void> {
  const { remote, source_path: mirror } = session.record;
  const lazy = remote && session.record.lazy ? lazyEntries(session) : undefined;
  if (!lazy || fs.statSync(mirror, { throwIfNoEntry: false })?.ino !== source.stats.ino) return;
  const ends = lazy.directory.rawEnds();
  const ranges = records
    .filter((record) => record.type !== 'dir')
    .map((record): [number, number] => [record.local_header_offset, ends[record.index] ?? source.size]);
  await ensureRanges(mirror, ranges, { etag: remote!.etag });
}

/**
 * The entry's uncompressed bytes as the session's base had them, or undefined when the session has no usable base
 * (none kept, or no longer the archive its manifest describes). `record` is an entry of the base (the manifest's, or
 * a lazy session's directory's).
 */
export async function readBaseEntry(
  session: Session,
  record: EntryRecord,
  limits?: Limits,
): Promise<Uint8Array | undefined> {
  const base = BaseArchive.open(session, limits);
  if (!base) return undefined;
  try {
    await base.fetch(session, record);
    return base.read(record);
  } finally {
    base.close();
  }
}
