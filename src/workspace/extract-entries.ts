/**
 * `extract` in a lazy session: entries not yet extracted are written into the
 * workspace folder, for tools that see only files (editors, sed, build tools),
 * and the manifest lists them from then on, with the stat each was left with,
 * as open lists what it extracts. The limits open applies to an archive apply
 * to what a session has extracted, so a lazy session of a million entries can
 * extract its way up to them and no further. A file the workspace already has
 * at an entry's path (written there by a tool) is the workspace's: never
 * overwritten, status compares it with the entry.
 */
import { fetchEntries } from './lazy-remote.ts';
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { humanBytes } from '../format/units.ts';
import { quoted } from '../format/quote-name.ts';
import type { Limits } from '../rules/limits.ts';
import { Beneath } from '../files/beneath.ts';
import { writeFully } from '../base/fd-io.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import { LazyReader } from './lazy-reader.ts';
import { listMore, type EntryRecord } from '../session/manifest.ts';
import type { Session } from '../session/session-store.ts';
import { assertRoomInWorkspaces } from '../session/workspace-room.ts';
import { STREAM_ABOVE_BYTES, extractedFileMode, uncreatable } from '../files/extract-files.ts';
import { trackedIndexes, assertTrackedMatch, readManifest } from '../session/read-manifest.ts';

export interface Extracted {
  /** Entries written (files, links and folders). */
  count: number;
  bytes: number;
  /** Entries that were on disk already (extracted before, or put there by a tool). */
  present: number;
}

export interface ExtractRequest {
  session: Session;
  lazy: LazyEntries;
  indexes: Iterable<number>;
  /** ZIPFS_HOME, whose workspaces' room is checked. */
  home: string;
  limits: Limits;
  signal?: AbortSignal;
}

/**
 * Refuses, before anything is written, what open would refuse of these entries together with those already extracted.
 */
function assertWithinLimits(request: ExtractRequest, todo: number[], trackedCount: number): void {
  const { session, lazy, home, limits } = request;
  for (const index of todo) {
    const reason = lazy.unrepresentable(index);
    if (reason)
      throw new ZipfsError(
        'ZIP_INVALID',
        `Entry ${quoted(lazy.paths[index]!)} cannot be extracted here: ${reason}. It stays in the zip, where ` +
          `read, grep and sync still reach it; to have it as a file, open the zip with ZIPFS_HOME on a folder that ` +
          `can hold it.`,
      );
  }
  const count = trackedCount + todo.length;
  if (count > limits.maxEntries) {
    throw new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Extracting ${todo.length} more entries would make ${count} extracted in this session, over the limit of ` +
        `${limits.maxEntries}. Extract fewer (name paths or a narrower glob), or raise ZIPFS_MAX_ENTRIES if the ` +
        `archive is trusted.`,
    );
  }
  let bytes = 0;
  for (const index of todo) if (lazy.type(index) !== 'dir') bytes += lazy.directory.entry(index).uncompressedSize;
  const after = session.record.extracted_size_bytes + bytes;
  if (after > limits.maxExtractedBytes) {
    throw new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Extracting these entries would make ${humanBytes(after)} extracted from this archive, over the limit of ` +
        `${humanBytes(limits.maxExtractedBytes)}. Extract fewer, read them without extracting (read and grep reach ` +
        `every entry), or raise ZIPFS_MAX_EXTRACTED_BYTES if the archive is trusted.`,
    );
  }
  assertRoomInWorkspaces(home, limits, bytes, 'extracting these entries adds');
}

/**
 * Writes the entries at `indexes` that are neither extracted nor deleted into
 * the workspace; the caller holds the session's lock. What was written before
 * a failure (a bomb entry, a full disk) stays extracted and listed.
 */

export async function extractEntries(request: ExtractRequest): Promise<Extracted> {
  const { session, lazy, indexes, limits, signal } = request;
  const manifest = readManifest(session.manifest);
  assertTrackedMatch(session.dir, manifest.entries, lazy);
  const tracked = trackedIndexes(manifest);
  const todo = [...new Set(indexes)].filter((index) => !tracked.has(index) && lazy.paths[index] !== '');
  assertWithinLimits(request, todo, tracked.size);
  // in file order: the zip is read front to back
  todo.sort((a, b) => lazy.directory.localHeaderOffset(a) - lazy.directory.localHeaderOffset(b));

  const added: EntryRecord[] = [];
  const result: Extracted = { count: 0, bytes: 0, present: 0 };
  const symlinks: string[] = [];
  await fetchEntries(session, lazy, todo, signal);
  const reader = new LazyReader(session, lazy, limits);
  const beneath = new Beneath(session.contents);
  try {
    for (const index of todo) {
      signal?.throwIfAborted();
      const relative = lazy.paths[index]!;
      const type = lazy.type(index);
      beneath.keepFoldersOf(relative);
      const place = beneath.place(relative, { create: true });
      const there = fs.lstatSync(place.path, { throwIfNoEntry: false });
      if (type === 'dir') {
        if (!there) fs.mkdirSync(place.path);
        else if (!there.isDirectory()) continue; // a file a tool put where the folder goes: status shows it
        added.push(lazy.record(index));
        result.count++;
        continue;
      }
      if (there) {
        result.present++;
        continue;
      }
      const record = lazy.record(index);
      const stats = await writeEntry(
        reader,
        index,
        record,
        place.folder.child(`.${place.name}.zipfs-${globalThis.crypto.randomUUID()}.tmp`),
        place.path,
      );
      record.extracted = { size: stats.size, mtime_ms: stats.mtimeMs, ctime_ms: stats.ctimeMs, ino: stats.ino };
      added.push(record);
      if (type === 'symlink') symlinks.push(relative);
      result.count++;
      result.bytes += record.size;
    }
  } finally {
    beneath.close();
    reader.close();
    if (added.length > 0)
      listMore(
        session,
        {
          ...manifest,
          session: {
            ...manifest.session,
            extracted_size_bytes: manifest.session.extracted_size_bytes + result.bytes,
            symlinks: [...manifest.session.symlinks, ...symlinks],
          },
        },
        added,
      );
  }
  return result;
}

/** One entry into a temporary beside its place, renamed there once whole: a reader never sees half of it. */
async function writeEntry(
  reader: LazyReader,
  index: number,
  record: EntryRecord,
  temporary: string,
  target: string,
): Promise<fs.Stats> {
  const fd = fs.openSync(temporary, 'wx', extractedFileMode(record.type === 'symlink', record.mode ?? undefined));
  try {
    try {
      if (record.size > STREAM_ABOVE_BYTES) await reader.stream(index, (chunk) => writeFully(fd, chunk));
      else writeFully(fd, reader.read(index));
      const mtime = new Date(record.mtime_ms);
      fs.futimesSync(fd, mtime, mtime);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw uncreatable(error, record.name, '') ?? error;
  }
  return fs.lstatSync(target);
}
