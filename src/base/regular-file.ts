/**
 * Opening a workspace file to read its content, safely. A FIFO opened for
 * reading blocks until a writer appears (forever, and deaf to SIGTERM while
 * the call waits), and a device such as /dev/zero never ends: so files are
 * opened without blocking (and, for the scan and sync, without following
 * links), and anything that is not a regular file is refused before a byte
 * is read. The scan already skips such files; this closes the gap when one
 * appears after the scan. read and edit open through here too.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError, quote } from './errors.ts';
import { S_IFBLK, S_IFCHR, S_IFIFO, S_IFMT, S_IFSOCK } from './file-modes.ts';
import { invocation } from './message-marks.ts';

const { O_RDONLY, O_NOFOLLOW = 0, O_NONBLOCK = 0 } = fs.constants;

/** What a non-regular, non-folder, non-link file is, for messages: "a FIFO (named pipe)". */
export function specialKind(mode: number): string | undefined {
  switch (mode & S_IFMT) {
    case S_IFIFO:
      return 'a FIFO (named pipe)';
    case S_IFSOCK:
      return 'a socket';
    case S_IFCHR:
      return 'a character device';
    case S_IFBLK:
      return 'a block device';
    default:
      return undefined;
  }
}

/** What a file that is not a regular file is, for messages: "a folder", "a FIFO (named pipe)". */
export function fileKind(stats: fs.Stats): string {
  return stats.isDirectory() ? 'a folder' : (specialKind(stats.mode) ?? 'not a regular file');
}

interface OpenOptions {
  /** For a path already resolved inside the workspace (read, edit); the scan and sync never follow links. */
  followLinks?: boolean;
  /** The error for what is not a regular file; sync's unsupportedFile unless said. */
  refuse?: (what: string, stats: fs.Stats) => ZipfsError;
}

/** Opens a regular file for reading; `relative` names it in the error. The caller closes the descriptor. */
export function openRegularFile(
  absolute: string,
  relative: string,
  options: OpenOptions = {},
): { fd: number; stats: fs.Stats } {
  let fd: number;
  try {
    fd = fs.openSync(absolute, O_RDONLY | O_NONBLOCK | (options.followLinks ? 0 : O_NOFOLLOW));
  } catch (error) {
    // O_NOFOLLOW met a link: one swapped in since the caller looked, never to be followed.
    if (!options.followLinks && isSystemError(error, 'ELOOP'))
      throw new ZipfsError(
        'PATH_TRAVERSAL',
        `Path ${quote(relative)} became a symbolic link while zipfs was using it; zipfs does not follow links ` +
          `inside a workspace. Retry once nothing else is changing it.`,
      );
    throw error;
  }
  let stats: fs.Stats;
  try {
    stats = fs.fstatSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  if (!stats.isFile()) {
    fs.closeSync(fd);
    const what = fileKind(stats);
    throw options.refuse ? options.refuse(what, stats) : unsupportedFile(relative, what);
  }
  return { fd, stats };
}

/** Read's and edit's refusal of what is not a regular file. */
export function notReadable(relative: string, what: string): ZipfsError {
  return new ZipfsError(
    'INVALID_INPUT',
    `Invalid argument path: ${quote(relative)} is ${what}; zipfs reads regular files only.`,
  );
}

export function unsupportedFile(relative: string, what: string): ZipfsError {
  return new ZipfsError(
    'SYNC_FAILED',
    `${quote(relative)} is ${what}, which a zip cannot hold; remove it from the ` +
      `workspace (${invocation('delete', { path: relative })}) and sync again. The zip was left as it was.`,
  );
}
