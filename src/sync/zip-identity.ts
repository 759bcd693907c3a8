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
  return stats && `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.nlink}`;
}

/**
 * Whether the file was written since its mtime was `mtimeMs` (a version from fileVersion): a sync whose zip was not
 * reads back only the ends of what it copied of it (verify-written.ts), those bytes being the ones checked before.
 */
export function writtenSince(version: string | undefined, mtimeMs: number): boolean {
  return version === undefined || Number(version.split(':')[3]) !== mtimeMs;
}

/**
 * Whether two versions are one file's bytes: equal, or differing only in a ctime that moved with the link count. A
 * session's base is a hard link to the zip (session/base-archive.ts): another session's open or close links or
 * unlinks it, which moves the zip's ctime and changes nothing in it. A write that restores the mtime moves the ctime
 * and leaves the count. (A link made and removed again between the two moments leaves the count too: taken for a
 * change, a false conflict that the next sync does not meet.)
 */
export function sameVersion(a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const [x, y] = [a.split(':'), b.split(':')];
  return x.slice(0, 4).join(':') === y.slice(0, 4).join(':') && x[5] !== y[5];
}

/** Whether the file at `file` is no longer the version `before` (sameVersion). */
export function changedSince(file: string, before: string | undefined): boolean {
  return !sameVersion(fileVersion(file), before);
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
  if (version !== undefined && changedSince(zipPath, version)) throw replacedDuringMerge(zipPath);
}
