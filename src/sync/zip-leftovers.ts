/**
 * What a sync killed outright (kill -9, power loss) leaves beside the zip: its
 * lock (`.<zip>.zipfs-lock`) and its temporaries (`.<zip>.zipfs-<pid>-<id>.tmp`,
 * which may be as large as the archive). The zip itself is whole. status lists
 * them; the next sync of that zip, close and prune remove them and say so, so
 * nothing is taken over or deleted without a word.
 */
import fs from 'node:fs';
import { deadZipLock, removeDeadZipLock, zipLockPath, type LockOwner } from '../session/lock.ts';
import { deadTemporaries } from './sync-files.ts';

export interface ZipLeftover {
  path: string;
  /** The process that left it, when known. */
  pid?: number;
  bytes: number;
  kind: 'lock' | 'temporary';
}

/** The zip's real path, or undefined when it (or its folder) is gone: then nothing of ours is beside it. */
function realZip(zipPath: string): string | undefined {
  try {
    return fs.realpathSync(zipPath);
  } catch {
    return undefined;
  }
}

function sizeOf(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}

function lockLeftover(lock: { file: string; holder?: LockOwner }, bytes: number): ZipLeftover {
  return { path: lock.file, ...(lock.holder ? { pid: lock.holder.pid } : {}), bytes, kind: 'lock' };
}

/** The leftovers of dead syncs beside the zip at `zipPath`, removing nothing. */
export function findZipLeftovers(zipPath: string): ZipLeftover[] {
  const target = realZip(zipPath);
  if (!target) return [];
  try {
    const lock = deadZipLock(target);
    const temporaries = deadTemporaries(target).map(
      (t): ZipLeftover => ({ path: t.path, pid: t.pid, bytes: sizeOf(t.path), kind: 'temporary' }),
    );
    return [...(lock ? [lockLeftover(lock, sizeOf(lock.file))] : []), ...temporaries];
  } catch {
    return []; // the folder cannot be read: sync says why when it gets there
  }
}

/** Removes the leftovers of dead syncs beside the zip at `zipPath` and returns what it removed. */
export function removeZipLeftovers(zipPath: string): ZipLeftover[] {
  const target = realZip(zipPath);
  if (!target) return [];
  const removed: ZipLeftover[] = [];
  try {
    const lockBytes = sizeOf(zipLockPath(target));
    const lock = removeDeadZipLock(target);
    if (lock) removed.push(lockLeftover(lock, lockBytes));
    for (const temporary of deadTemporaries(target)) {
      const bytes = sizeOf(temporary.path);
      fs.rmSync(temporary.path, { force: true });
      removed.push({ path: temporary.path, pid: temporary.pid, bytes, kind: 'temporary' });
    }
  } catch {
    // The folder cannot be read or written: sync says why when it gets there.
  }
  return removed;
}

/** "the lock .app.zip.zipfs-lock (process 123, gone)": one leftover, for notes and reasons. */
export function describeLeftover(leftover: ZipLeftover): string {
  const by = leftover.pid === undefined ? 'its process unknown' : `process ${leftover.pid}, gone`;
  return `${leftover.kind === 'lock' ? 'the lock' : 'the temporary'} ${leftover.path} (${by})`;
}
