/**
 * The lazy workspace's reader: entries' bytes straight from the zip, with every check
 * open makes of an entry it extracts (the limits on its size and ratio, its headers
 * against the directory, overlap with the next entry, CRC-32 and size as it inflates).
 * Read, grep and extract of a lazy workspace ask here (lazy-workspace.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, throwRefusal } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import {
  FileSource,
  assertReadable,
  entryLayoutFault,
  locateEntryData,
  openRefusal,
  readEntryData,
  streamEntryData,
  type EntryLocation,
  type ZipEntry,
  assertKeyFits,
  cipherFacts,
  encryptionOf,
} from '../zip/index.ts';
import { DeclaredSizes } from '../rules/declared-sizes.ts';
import { param } from '../base/message-marks.ts';
import { writeFully } from '../base/fd-io.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import { sessionDamaged } from '../session/manifest.ts';
import type { Session } from '../session/session-store.ts';
import { openBase } from '../session/source-state.ts';

/** LazyReader's read-ahead window. */
const READ_AHEAD_BYTES = 64 << 10;

/**
 * Reads entries of a lazy session from its zip. The zip must still be the
 * session's base: if another writer changed it, the offsets in central.bin
 * may point at other bytes, so nothing is read (sync with merge, or reopen).
 */
export class LazyReader {
  private readonly source: FileSource;

  constructor(
    session: Session,
    readonly lazy: LazyEntries,
    private readonly limits: Limits,
  ) {
    // The zip is opened once and that descriptor checked to be the base (the hash of its directory):
    // every entry read goes through it, so a rename over the path after the check changes nothing here.
    // A small read-ahead: each call reads one entry's header and data, not megabytes around them.
    const base = openBase(session.record, READ_AHEAD_BYTES);
    if (!base.source) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `The zip ${session.record.source_path} ` +
          `${base.state === 'missing' ? 'is gone' : "changed since this session's base (another writer)"}, and ` +
          `entries this lazy session has not extracted are read from it. Sync (with ${param('merge')} to keep both ` +
          `sides' changes) or close the session and open the zip again.`,
      );
    }
    // The zip is the base: where its directory is must be where the session's record says (its offsets index the zip).
    const facts = session.record.lazy;
    if (facts && (base.place.start !== facts.central_start || base.place.baseOffset !== facts.base_offset)) {
      base.source.close();
      throw sessionDamaged(
        session.dir,
        `its manifest places the zip's directory at offset ${facts.central_start} (archive at ` +
          `${facts.base_offset}), but the zip, still this session's base, has it at ${base.place.start} (archive ` +
          `at ${base.place.baseOffset})`,
      );
    }
    this.source = base.source;
  }

  /** The descriptor entries are read through (a grep worker reads the same file: threads share descriptors). */
  get fd(): number {
    return this.source.fd;
  }

  /** Entry `index`, checked as open checks an entry it extracts; returns it for reading. */
  check(index: number): ZipEntry {
    const entry = this.lazy.directory.entry(index);
    // An entry the folder cannot hold (lazy.unrepresentable) is read all the same: only extracting it is refused.
    // Readable, and its size and ratio within open's limits, as an archive of this one entry would be.
    assertReadable(entry);
    // A wrong password is refused here, before a file read from the zip once is served again (read-page.ts).
    if (encryptionOf(entry)) assertKeyFits(this.source, entry);
    const sizes = new DeclaredSizes(this.limits, throwRefusal, () => entry.name);
    sizes.add(index, entry.uncompressedSize, entry.compressedSize);
    sizes.finish();
    const fault = entryLayoutFault(
      this.source,
      entry,
      this.lazy.directory.rawEnds()[index]!,
      this.lazy.directory.centralStart,
    );
    if (fault) throw openRefusal(fault);
    return entry;
  }

  /** Entry `index`'s bytes, verified (for entries small enough to hold: see stream). */
  read(index: number): Uint8Array {
    const entry = this.check(index);
    return readEntryData(this.source, entry);
  }

  /** Entry `index`'s bytes in pieces, verified as they come; the checks at the end reject after the last piece. */
  async stream(index: number, sink: (chunk: Uint8Array) => void): Promise<void> {
    const entry = this.check(index);
    await streamEntryData(this.source, entry, locateEntryData(this.source, entry), sink);
  }

  /** What a worker needs to read entry `index` itself, once checked here. */
  location(index: number): EntryLocation {
    // Only what a worker needs: the parsed entry's name views and extra fields do not cross threads.
    const entry = this.check(index);
    const { name, flags, method, compressedSize, uncompressedSize, crc32, localHeaderOffset } = entry;
    return { name, flags, method, compressedSize, uncompressedSize, crc32, localHeaderOffset, ...cipherFacts(entry) };
  }

  close(): void {
    this.source.close();
  }
}

/** Runs `fn` with a reader of the session's zip, closed after. */
export async function withLazyReader<T>(
  session: Session,
  lazy: LazyEntries,
  limits: Limits,
  fn: (reader: LazyReader) => T | Promise<T>,
): Promise<T> {
  const reader = new LazyReader(session, lazy, limits);
  try {
    return await fn(reader);
  } finally {
    reader.close();
  }
}

/** Entries read whole from the zip, kept in the session for the next page: a few, the latest. */
const READ_CACHE = 'read-cache';
const READ_CACHE_FILES = 8;

/**
 * A file holding entry `index` as extracted, for reads by page (read-page.ts
 * works on a file): inflated once, kept in the session beside the workspace
 * (never in it: status must not see it) while it is among the latest read, so
 * paging through a large entry inflates it once.
 */
export async function entryFileForRead(session: Session, reader: LazyReader, index: number): Promise<string> {
  const entry = reader.check(index);
  const file = readCachePath(session, `${index}-${entry.crc32.toString(16)}-${entry.uncompressedSize}`);
  return cachedRead(file, entry.uncompressedSize, (sink) => reader.stream(index, sink));
}

/**
 * `file` in the read cache, holding what `stream` gives (`size` bytes): kept from an earlier read when it is
 * there whole, else written to a temporary and renamed into place, so a killed read never leaves half a file.
 */
export async function cachedRead(
  file: string,
  size: number,
  stream: (sink: (chunk: Uint8Array) => void) => Promise<void>,
): Promise<string> {
  const folder = path.dirname(file);
  if (fs.statSync(file, { throwIfNoEntry: false })?.size === size) {
    const now = new Date();
    fs.utimesSync(file, now, now);
    return file;
  }
  fs.mkdirSync(folder, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, 'w', 0o600);
  try {
    try {
      await stream((chunk) => writeFully(fd, chunk));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  keepLatestReads(folder);
  return file;
}

/** Where the session's read cache keeps the file `name`. */
export function readCachePath(session: Session, name: string): string {
  return path.join(session.dir, READ_CACHE, name);
}

/** The oldest go: the cache holds the latest few entries read. */
export function keepLatestReads(folder: string): void {
  const kept = fs
    .readdirSync(folder)
    .filter((name) => !name.endsWith('.tmp'))
    .map((name) => ({ name, at: fs.statSync(path.join(folder, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const old of kept.slice(READ_CACHE_FILES)) fs.rmSync(path.join(folder, old.name), { force: true });
}
