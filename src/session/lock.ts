/**
 * Locks for mutating operations: one per session, and one per zip that sync
 * writes (beside the zip, so every zipfs process sees it whatever its data
 * folder: the conflict check and the rename over the zip are one step against
 * every other sync of that zip). The lock is a file holding the
 * owner's pid, start time and command, put in place by link(2), which is atomic and fails
 * if it exists, so no one ever sees a half-written lock. A lock whose owner is
 * dead is taken over (renamed away first, so two processes cannot both take
 * it); dead means its pid runs nothing, or runs a process that started at
 * another time than the one recorded (the pid was reused: owner.ts). Reads
 * never take the lock.
 *
 * Agents call tools in parallel: mutations of one session inside one process
 * queue behind each other in arrival order and never see LOCKED; a mutation
 * that finds another process holding the lock waits for it, up to a busy
 * timeout (ZIPFS_LOCK_WAIT_MS, like SQLite's), before LOCKED.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import { type LockOwner, isAlive, ownRecord, readOwner } from './lock-owner.ts';
import { type LockTarget, sessionTarget, zipLockPath, zipTarget } from './lock-targets.ts';
import type { Session } from './session-store.ts';

export { isAlive, lockedByOther, type LockOwner } from './lock-owner.ts';
export { lockPath, zipLockPath } from './lock-targets.ts';

/** How long to wait for another process's lock, and what may stop the wait. */
export interface LockWait {
  waitMs: number;
  signal?: AbortSignal;
}

/** This process's queue per lock file: the tail every new mutation waits behind. */
const queues = new Map<string, Promise<void>>();

/**
 * Runs `fn` holding the session's lock. Inside this process, calls take turns
 * in arrival order; a lock held by another live process is waited for up to
 * `wait.waitMs`, then it is LOCKED naming the holder.
 */
export function withSessionLock<T>(
  session: Session,
  command: string,
  fn: () => T | Promise<T>,
  wait: LockWait,
): Promise<T> {
  return withLock(sessionTarget(session), command, fn, wait);
}

/**
 * Runs `fn` holding the lock of the zip at `zipPath` (its real path: every
 * session of one zip meets at the same lock), against every zipfs process
 * writing that zip, in this process or another.
 */
export function withZipLock<T>(zipPath: string, command: string, fn: () => T | Promise<T>, wait: LockWait): Promise<T> {
  return withLock(zipTarget(zipPath), command, fn, wait);
}

/** Runs `fn` holding the lock `target` describes (the session's, the zip's, or open's: open-lock.ts). */
export async function withLock<T>(
  target: LockTarget,
  command: string,
  fn: () => T | Promise<T>,
  wait: LockWait,
): Promise<T> {
  const { file } = target;
  const before = queues.get(file) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const tail = before.then(() => mine);
  queues.set(file, tail);
  try {
    await before;
    await acquireWaiting(target, command, wait);
    try {
      return await fn();
    } finally {
      release(file);
    }
  } finally {
    done();
    if (queues.get(file) === tail) queues.delete(file);
  }
}

/** Polls for the lock, 5 ms at first and then less often, until it is free or the wait is over. */
async function acquireWaiting(target: LockTarget, command: string, wait: LockWait): Promise<void> {
  const deadline = Date.now() + wait.waitMs;
  for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
    wait.signal?.throwIfAborted();
    const holder = tryAcquire(target, command);
    if (holder === undefined) return;
    if (Date.now() >= deadline) {
      const who =
        holder === 'busy'
          ? 'is being locked and unlocked by other processes'
          : `is locked by process ${holder.pid} (zipfs ${holder.command}, since ${holder.since})`;
      const waited = wait.waitMs > 0 ? ` zipfs waited ${wait.waitMs} ms for it (ZIPFS_LOCK_WAIT_MS);` : '';
      throw new ZipfsError('LOCKED', `${target.subject} ${who};${waited} retry when it has finished.`);
    }
    await Bun.sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
  }
}

/** Takes the lock and returns undefined, or returns who holds it ('busy': it changed hands while we tried). */
function tryAcquire(target: LockTarget, command: string): LockOwner | 'busy' | undefined {
  const { file } = target;
  const owner = ownRecord(command);
  const draft = `${file}.${process.pid}-${globalThis.crypto.randomUUID()}`;
  try {
    fs.writeFileSync(draft, JSON.stringify(owner));
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) throw target.gone();
    if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) throw target.notWritable();
    throw error;
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(draft, file);
        removeOnExit(file); // a SIGINT or SIGTERM releases it on the way out
        return undefined;
      } catch (error) {
        if (!isSystemError(error, 'EEXIST')) throw error;
      }
      const holder = takeOverIfStale(target);
      if (holder) return holder;
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  return 'busy';
}

/** Returns the live holder; otherwise moves the dead holder's lock aside so the caller can retry. */
function takeOverIfStale(target: LockTarget): LockOwner | undefined {
  const { file } = target;
  // Only a file is a zipfs lock; anything else at its path was put there by hand and is not ours to remove.
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stats && !stats.isFile()) {
    throw new ZipfsError(
      target.blockedCode,
      `${target.subject} cannot be locked: ${file} is ${stats.isDirectory() ? 'a folder' : 'not a file'}, not a ` +
        `zipfs lock. Remove it (rm -r '${file}'), then retry.`,
    );
  }
  const current = readOwner(file);
  if (current && isAlive(current)) return current;
  const aside = `${file}.stale-${globalThis.crypto.randomUUID()}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return undefined; // Another process moved it first; the next attempt decides.
  }
  // Between our read and the rename, another process may have taken over and
  // locked: if what we moved is live, put it back and yield to it.
  const moved = readOwner(aside);
  if (moved && isAlive(moved)) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // Someone else holds it now anyway.
    }
    fs.rmSync(aside, { force: true });
    return moved;
  }
  const stale = `${path.basename(file)}.stale-`;
  for (const leftover of fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(stale))) {
    fs.rmSync(path.join(path.dirname(file), leftover), { force: true });
  }
  return undefined;
}

/**
 * The lock beside a zip when its holder is dead (a sync killed with kill -9), for status to show;
 * undefined when there is none or its holder lives. An unreadable lock file is dead too (a lock is
 * complete when it appears: link(2)), with no holder to name.
 */
export function deadZipLock(zipPath: string): { file: string; holder?: LockOwner } | undefined {
  const file = zipLockPath(zipPath);
  if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
  const holder = readOwner(file);
  if (holder && isAlive(holder)) return undefined;
  return holder ? { file, holder } : { file };
}

/**
 * Removes the zip's lock when its holder is dead, the way a sync takes it over (moved aside first,
 * put back if it turns out live), and returns what was removed, so that sync and prune can say so.
 */
export function removeDeadZipLock(zipPath: string): { file: string; holder?: LockOwner } | undefined {
  const dead = deadZipLock(zipPath);
  if (!dead) return undefined;
  return takeOverIfStale(zipTarget(zipPath)) === undefined ? dead : undefined;
}

function release(file: string): void {
  fs.rmSync(file, { force: true });
  keepOnExit(file);
}
