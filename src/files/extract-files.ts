/**
 * Writes archive entries as files: the part of `open` that runs on both cores
 * for large archives (the main thread takes one share, extract-worker.ts the other).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { locateEntryData, readEntryData, streamEntryData, type EntryLocation, type ZipSource } from '../zip/index.ts';
import { quoted } from '../format/quote-name.ts';

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

/** Entries larger than this are streamed to disk in chunks; smaller ones are read whole (faster). */
export const STREAM_ABOVE_BYTES = 8 * 1024 * 1024;

/**
 * An extracted file's mode: a link entry becomes a plain file holding its target (never a live link); others keep the
 * archive's permission bits, always readable and writable by their owner.
 */
export function extractedFileMode(symlink: boolean, unixMode: number | undefined): number {
  return symlink ? 0o644 : ((unixMode ?? 0o644) & 0o777) | 0o600;
}

/**
 * A file an entry cannot be created as on this file system (a name too long, not in its encoding): ZIP_INVALID naming
 * the entry.
 */
export function uncreatable(error: unknown, name: string, consequence: string): ZipfsError | undefined {
  if (!isSystemError(error, 'ENAMETOOLONG', 'EILSEQ', 'EINVAL')) return undefined;
  return new ZipfsError(
    'ZIP_INVALID',
    `Entry ${quoted(name)} cannot be created on this file system (${(error as Error).message})${consequence}.`,
  );
}

export async function writeFileTask(source: ZipSource, task: FileTask, root: string): Promise<void> {
  const { entry } = task;
  const span = locateEntryData(source, entry);
  if (span.dataEnd > task.limit) {
    throw new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Entry ${quoted(entry.name)} has data running into the next entry or the central directory (overlapping ` +
        `entries, a zip-bomb construction); the archive was refused.`,
    );
  }
  const streamed = entry.uncompressedSize > STREAM_ABOVE_BYTES;
  const data = streamed ? undefined : readEntryData(source, entry, span);
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, task.path), 'wx', extractedFileMode(task.symlink, task.unixMode));
  } catch (error) {
    throw uncreatable(error, entry.name, '; the archive was not opened') ?? error;
  }
  try {
    const write = (bytes: Uint8Array) => {
      for (let written = 0; written < bytes.length; )
        written += fs.writeSync(fd, bytes, written, bytes.length - written);
    };
    if (data) write(data);
    else await streamEntryData(source, entry, span, write);
    const mtime = new Date(task.mtimeMs);
    fs.futimesSync(fd, mtime, mtime);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Bytes an entry adds to progress, and a rough cost for sharing work: creating a file costs about as much as 16 KiB of
 * data.
 */
export function taskCost(task: FileTask): number {
  return task.entry.compressedSize + 16 * 1024;
}
