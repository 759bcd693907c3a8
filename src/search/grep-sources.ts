/**
 * Where grep's worker reads a file's bytes from, piece by piece, handing them
 * to `take`, which returns false to stop reading early (a binary file skipped,
 * max_results reached): a 1 GiB file is never held whole.
 */
import fs from 'node:fs';
import type { Beneath } from '../files/beneath.ts';
import { openRegularFile } from '../files/regular-file.ts';

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
