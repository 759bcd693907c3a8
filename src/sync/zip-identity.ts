/**
 * A zip's identity and version (inode, size, times), to see that nothing
 * replaced or wrote it between two moments: a program that is not zipfs
 * takes no lock, so a sync compares this before it renames over the zip, and
 * a merge compares it with the zip it planned from (zip-now.ts).
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';

export function fileVersion(file: string): string | undefined {
  const stats = fs.statSync(file, { throwIfNoEntry: false });
  return stats && `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

/** The zip changed under a merge after its plan was read: nothing was replaced, and a new merge reads it again. */
export function replacedDuringMerge(zipPath: string): ZipfsError {
  return new ZipfsError(
    'CONFLICT_DETECTED',
    `The zip ${zipPath} was replaced or written by another program while this merge was reading or writing it; ` +
      `nothing was replaced and the workspace keeps its changes. Sync with ${param('merge')} again, once the other ` +
      `program is done, to merge against the zip as it is then.`,
  );
}

/** Throws replacedDuringMerge when the zip is no longer the version a merge planned from. */
export function assertSameZip(zipPath: string, version: string | undefined): void {
  if (version !== undefined && fileVersion(zipPath) !== version) throw replacedDuringMerge(zipPath);
}
