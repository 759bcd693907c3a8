/**
 * Where grep's worker reads a file's bytes from, piece by piece: a workspace
 * file, or an entry of a zip (a lazy session's entries not extracted). Both
 * hand pieces to `take`, which returns false to stop reading early (a binary
 * file skipped, max_results reached): a 1 GiB file is never held whole.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import type { Beneath } from '../files/beneath.ts';
import { openRegularFile } from '../base/regular-file.ts';
import { locateEntryData, readEntryData, streamEntryData } from '../zip/entry-data.ts';
import { FileSource } from '../zip/source.ts';
import type { EntryLocation } from '../zip/types.ts';

/** Read size for workspace files: large enough that system calls cost nothing, small enough to be nothing in memory. */
export const CHUNK_BYTES = 1 << 20;

export type Take = (piece: Uint8Array) => boolean;

/**
 * A listed file's bytes, reached without links and only if it is still a
 * regular file (never a FIFO that would block). False when it cannot be
 * opened: removed, or swapped for a link or a special file, while grep ran.
 * A read failing midway ends the file there, keeping what was found in it.
 */
export function readWorkspaceFile(beneath: Beneath, file: string, buffer: Buffer, take: Take): boolean {
  beneath.keepFoldersOf(file); // files come sorted: keep only the folders on the way to this one
  let fd: number;
  try {
    fd = openRegularFile(beneath.place(file).path, file).fd;
  } catch {
    return false;
  }
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0 || !take(buffer.subarray(0, n))) break;
    }
  } catch {
    // EIO or the like midway: the file ends here for grep.
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

const STOP = Symbol('stop reading');

/** Entries up to this size are inflated whole (a few pieces of memory); larger ones stream. */
const WHOLE_ENTRY_BYTES = 8 << 20;

function openZip(zipPath: string): FileSource {
  try {
    return new FileSource(zipPath);
  } catch (error) {
    if (!isSystemError(error, 'ENOENT', 'ENOTDIR')) throw error;
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The zip ${zipPath} is gone (moved or deleted), and with it the entries grep reads from it; put it back, ` +
        `then retry.`,
    );
  }
}

/** The zip files a grep reads entries from, each opened once and closed at the end. */
export class ZipSources {
  private readonly open = new Map<string, FileSource>();

  /** `fd`: a descriptor the caller holds open (not closed here); the path is opened only without one. */
  get(zipPath: string, fd?: number): FileSource {
    let source = this.open.get(zipPath);
    if (!source)
      this.open.set(
        zipPath,
        (source = fd === undefined ? openZip(zipPath) : new FileSource({ fd, stats: fs.fstatSync(fd) })),
      );
    return source;
  }

  close(): void {
    for (const source of this.open.values()) source.close();
    this.open.clear();
  }
}

/**
 * An entry's bytes, inflated and verified as they stream (entry-data.ts): a
 * lying size is ZIP_BOMB_DETECTED, a bad CRC or damaged data ZIP_INVALID, and
 * those errors are thrown to the caller. An entry left early (take returned
 * false) is verified only as far as it was read: grep wanted no more of it.
 */
export async function readZipEntry(source: FileSource, entry: EntryLocation, take: Take): Promise<void> {
  if (entry.uncompressedSize <= WHOLE_ENTRY_BYTES) {
    // Small entries inflate whole, verified, in one call: a stream per entry (a zlib object, its
    // events and promises) cost three times the inflating over a source tree's thousands of files.
    const bytes = readEntryData(source, entry);
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) if (!take(bytes.subarray(at, at + CHUNK_BYTES))) return;
    return;
  }
  try {
    await streamEntryData(source, entry, locateEntryData(source, entry), (piece) => {
      if (!take(piece)) throw STOP;
    });
  } catch (error) {
    if (error !== STOP) throw error;
  }
}
