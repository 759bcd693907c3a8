/**
 * Writes archive entries as files: the part of `open` that runs on both cores
 * for large archives (the main thread takes one share, extract-worker.ts the other).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../errors.ts';
import { locateEntryData, readEntryData, type EntryLocation, type ZipSource } from '../zip/index.ts';
import { printable } from './entry-paths.ts';

/** One file to write; plain data, so it can be posted to a worker. */
export interface FileTask {
  entry: EntryLocation;
  path: string;
  symlink: boolean;
  /** Unix permission bits recorded in the archive, if any. */
  unixMode: number | undefined;
  mtimeMs: number;
  /** Where the next entry (or the central directory) starts: this entry's data must end before it. */
  limit: number;
}

export function writeFileTask(source: ZipSource, task: FileTask, root: string): void {
  const { entry } = task;
  const span = locateEntryData(source, entry);
  if (span.dataEnd > task.limit) {
    throw new ZipfsError('ZIP_BOMB_DETECTED', `Entry "${printable(entry.name)}" has data running into the next entry or the central directory (overlapping entries, a zip-bomb construction); the archive was refused.`);
  }
  const data = readEntryData(source, entry, span);
  // A symlink entry becomes a regular file holding its target: never a live link.
  const mode = task.symlink ? 0o644 : ((task.unixMode ?? 0o644) & 0o777) | 0o600;
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, task.path), 'wx', mode);
  } catch (error) {
    if (isSystemError(error, 'ENAMETOOLONG', 'EILSEQ', 'EINVAL')) {
      throw new ZipfsError('ZIP_INVALID', `Entry "${printable(entry.name)}" cannot be created on this file system (${(error as Error).message}); the archive was not opened.`);
    }
    throw error;
  }
  try {
    for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written);
    const mtime = new Date(task.mtimeMs);
    fs.futimesSync(fd, mtime, mtime);
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes an entry adds to progress, and a rough cost for sharing work: creating a file costs about as much as 16 KiB of data. */
export function taskCost(task: FileTask): number {
  return task.entry.compressedSize + 16 * 1024;
}
