/**
 * The zip itself, as a file: it must be a regular file. A FIFO opened for
 * reading blocks until a writer appears (for ever, and deaf to SIGINT and
 * SIGTERM while the call waits), a device never ends or is no archive, and a
 * folder holds none. So every reader of the zip (open, inspect, status, diff,
 * sync; through FileSource) opens it without blocking and looks at what the
 * descriptor it got is, before reading a byte: a swap between a check and the
 * open is no gap. Links are followed (users point at links to their zips);
 * only what the path finally names counts.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError, type ErrorCode } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { fileKind, openRegularFile } from '../base/regular-file.ts';

/**
 * A folder is no zip file there at all (the path is wrong: ZIP_NOT_FOUND); a FIFO, socket or device is a file that can
 * never be one.
 */
function codeFor(stats: fs.Stats): ErrorCode {
  return stats.isDirectory() ? 'ZIP_NOT_FOUND' : 'ZIP_INVALID';
}

/**
 * Opens the zip at `zipPath` for reading, or refuses what is not a regular file (notAZipFile). The caller closes the
 * descriptor.
 */
export function openZipFile(zipPath: string): { fd: number; stats: fs.Stats } {
  try {
    return openRegularFile(zipPath, zipPath, { followLinks: true, refuse: (_, stats) => notAZipFile(zipPath, stats) });
  } catch (error) {
    // A socket, or a device with no driver behind it, cannot even be opened: say what it is, not "no such device".
    const stats = isSystemError(error, 'ENXIO', 'ENODEV') ? fs.statSync(zipPath, { throwIfNoEntry: false }) : undefined;
    if (stats && !stats.isFile()) throw notAZipFile(zipPath, stats);
    throw error;
  }
}

/** The refusal of a path given as a zip (open, inspect) that holds something else. */
function notAZipFile(zipPath: string, stats: fs.Stats): ZipfsError {
  const next = stats.isDirectory()
    ? 'give the path of a .zip file'
    : 'give the path of a zip file, or, to start a new archive, a path where nothing is yet';
  return new ZipfsError(
    codeFor(stats),
    `${zipPath} is ${fileKind(stats)}, not a zip file: zipfs reads a zip only from a regular file (or a link to ` +
      `one), so nothing was read from it. Instead, ${next}.`,
  );
}

/**
 * A session's zip path found holding something else than a regular file
 * (diff, sync): refused, `force` or not. Writing the new archive over it would
 * silently replace what someone put there (a FIFO another program reads), and
 * reading it could block for ever.
 */
export function zipPathTaken(zipPath: string, stats: fs.Stats): ZipfsError {
  return new ZipfsError(
    codeFor(stats),
    `The zip path ${zipPath} now holds ${fileKind(stats)}, not a zip file; zipfs will neither read it nor write ` +
      `over it. Move it away and put the zip back there, then retry; or, to write the workspace there as a new ` +
      `archive, move it away and sync with ${param('force')}.`,
  );
}
