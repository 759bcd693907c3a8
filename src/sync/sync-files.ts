/**
 * The file-system steps around a sync: the backup beside the source, flushing
 * the folder, and removal of temporaries left by syncs whose process died.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isProcessAlive } from '../session/process-alive.ts';
import { libc } from '../base/libc.ts';
import { ZipfsError } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { hostPlatform, openFilesBlockRenames, type Platform } from '../rules/platform.ts';
import { isRetryableInUse } from '../rules/file-in-use.ts';

/** Marks zipfs temporaries beside a source zip: `.<name>.zipfs-<pid>-<id>.tmp`. */
export const TEMP_MARK = '.zipfs-';

/**
 * `reports.zip` -> `reports.zip.bak`. The backup keeps the whole name and adds
 * an extension no archive tool looks for: `six.bak.whl` was installed by
 * `pip --find-links` instead of the edited wheel, and `lib/app.bak.jar` was
 * loaded by `java -cp 'lib/*'` beside the new jar.
 */
export function backupPathFor(source: string): string {
  return `${source}.bak`;
}

/**
 * A copy of the zip as it is beside it (a hard link where it can: no copy), made just before the new archive
 * replaces it: backup-history.ts puts it in place as `<name>.bak`.
 */
export function draftBackup(target: string): string {
  const draft = `${backupPathFor(target)}${TEMP_MARK}${process.pid}.tmp`;
  fs.rmSync(draft, { force: true });
  // Not linked on Windows, where a link to a zip another program holds open cannot be renamed or removed while it does.
  if (openFilesBlockRenames() || !linked(target, draft)) fs.copyFileSync(target, draft);
  return draft;
}

function linked(existing: string, link: string): boolean {
  try {
    fs.linkSync(existing, link);
    return true;
  } catch {
    return false; // a file system without hard links, or across devices: the caller copies
  }
}

/** Refuses, before anything is written, a backup path that holds something a file cannot replace. */
export function assertBackupPathFree(target: string): void {
  const backup = backupPathFor(target);
  const stats = fs.lstatSync(backup, { throwIfNoEntry: false });
  if (stats && !stats.isFile() && !stats.isSymbolicLink()) {
    throw new ZipfsError(
      'SYNC_FAILED',
      `Sync keeps the previous archive as ${backup}, but a ${stats.isDirectory() ? 'folder' : 'special file'} is ` +
        `there. Move it away, or sync without a backup (${param('backup', false)}); the zip was left as it was.`,
    );
  }
}

/**
 * How long the final rename keeps trying on Windows, where virus scanners and indexers hold a new file for a moment.
 */
const RENAME_RETRY_MS = [50, 100, 200, 400, 800];

/**
 * Renames the new archive over the zip. On Windows another program holding
 * either file (open without delete sharing) makes the rename fail with EBUSY
 * or EPERM for as long as it holds it: retried for about 1.5 s, then the error
 * stands (FILE_IN_USE, from the caller). Elsewhere a rename either works or
 * will not by waiting.
 */
export async function renameOver(from: string, to: string, platform: Platform = hostPlatform()): Promise<void> {
  for (const pause of openFilesBlockRenames(platform) ? [...RENAME_RETRY_MS, undefined] : [undefined]) {
    try {
      fs.renameSync(from, to);
      return;
    } catch (error) {
      if (pause === undefined || !isRetryableInUse(error, platform)) throw error;
      await Bun.sleep(pause);
    }
  }
}

/**
 * Flushes a file to disk through its descriptor on the runtime's I/O threads, and closes the descriptor after: the
 * sync reads back and describes the new archive while the disk takes it, and waits for the flush only before the
 * rename. The writer's own descriptor: one opened again for the flush could be refused (a read-only zip's mode).
 */
export function flushInBackground(fd: number): Promise<void> {
  return new Promise((resolve, reject) =>
    fs.fsync(fd, (flushing) =>
      fs.close(fd, (closing) => (flushing || closing ? reject(flushing ?? closing) : resolve())),
    ),
  );
}

/**
 * Starts writing a file just written to disk, without waiting for it (Linux; elsewhere nothing). Renamed over an
 * older file, ext4 (auto_da_alloc) allocates and starts writing its blocks in the rename itself: 1.3 ms of a
 * one-file sync for a manifest of 2,500 entries, now spent by the disk while the sync goes on.
 */
export function startWritingBack(file: string): void {
  const native = libc();
  if (!native) return;
  try {
    const fd = fs.openSync(file, 'r');
    try {
      native.startWriteback(fd, 0, 0);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // only a head start: the rename does it otherwise
  }
}

/** Flushes a folder's entries (the rename), where the platform allows it. */
export function fsyncDirectory(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Not every platform can fsync a folder; the rename is still atomic.
  }
}

const LOCK_DRAFT = 'lock.';

/** A temporary of a sync whose process died (kill -9, power loss), beside the zip: its path and that process. */
export interface DeadTemporary {
  path: string;
  pid: number;
}

/** The temporaries beside `target` (the zip's real path) whose sync process is gone. */
export function deadTemporaries(target: string): DeadTemporary[] {
  const dir = path.dirname(target);
  const prefix = `.${path.basename(target)}${TEMP_MARK}`;
  const backupPrefix = `${path.basename(backupPathFor(target))}${TEMP_MARK}`;
  const found: DeadTemporary[] = [];
  for (const name of fs.readdirSync(dir)) {
    let rest = name.startsWith(prefix)
      ? name.slice(prefix.length)
      : name.startsWith(backupPrefix)
        ? name.slice(backupPrefix.length)
        : undefined;
    // The zip lock's drafts (`.<zip>.zipfs-lock.<pid>-<id>`, session/lock.ts) of a process killed while taking it.
    if (rest?.startsWith(LOCK_DRAFT)) rest = rest.slice(LOCK_DRAFT.length);
    else if (rest === undefined || !name.endsWith('.tmp')) continue;
    const pid = Number.parseInt(rest, 10);
    if (Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid))
      found.push({ path: path.join(dir, name), pid });
  }
  return found;
}

/** Removes temporaries of syncs whose process died (kill -9, power loss). */
export function removeDeadTemporaries(target: string): void {
  for (const temporary of deadTemporaries(target)) fs.rmSync(temporary.path, { force: true });
}
