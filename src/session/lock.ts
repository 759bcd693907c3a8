/**
 * Per-session locks for mutating operations. The lock is a file holding the
 * owner's pid and command, put in place by link(2), which is atomic and fails
 * if it exists, so no one ever sees a half-written lock. A lock whose owner is
 * dead is taken over (renamed away first, so two processes cannot both take
 * it). Reads never take the lock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../errors.ts';
import { isProcessAlive } from './process-alive.ts';
import type { Session } from './session-store.ts';

interface LockOwner {
  pid: number;
  host: string;
  command: string;
  since: string;
}

const held = new Set<string>();

export function lockPath(session: Session): string {
  return path.join(session.dir, 'lock');
}

function readOwner(file: string): LockOwner | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

function isAlive(owner: LockOwner): boolean {
  return owner.host !== os.hostname() || isProcessAlive(owner.pid); // another host's process: cannot tell, assume it lives
}

/** Whether another live process holds the session's lock (prune skips such sessions). */
export function lockedByOther(session: Session): LockOwner | undefined {
  const owner = readOwner(lockPath(session));
  return owner && owner.pid !== process.pid && isAlive(owner) ? owner : undefined;
}

/** Runs `fn` holding the session's lock; LOCKED if a live process holds it. */
export async function withSessionLock<T>(session: Session, command: string, fn: () => T | Promise<T>): Promise<T> {
  const file = lockPath(session);
  acquire(file, session.record.name, command);
  try {
    return await fn();
  } finally {
    release(file);
  }
}

function acquire(file: string, name: string, command: string): void {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), command, since: new Date().toISOString() };
  const draft = `${file}.${process.pid}-${globalThis.crypto.randomUUID()}`;
  try {
    fs.writeFileSync(draft, JSON.stringify(owner));
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) throw new ZipfsError('SESSION_NOT_FOUND', `Session "${name}" was closed by another process.`);
    if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) {
      throw new ZipfsError('PERMISSION_DENIED', `Session "${name}" cannot be locked: its folder ${path.dirname(file)} is not writable by this user. Give your user write access to it (chmod u+rwx), then retry.`);
    }
    throw error;
  }
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        fs.linkSync(draft, file);
        held.add(file);
        return;
      } catch (error) {
        if (!isSystemError(error, 'EEXIST')) throw error;
      }
      takeOverIfStale(file, name);
    }
  } finally {
    fs.rmSync(draft, { force: true });
  }
  throw new ZipfsError('LOCKED', `Session "${name}" is being locked and unlocked by other processes; retry.`);
}

/** LOCKED when the holder lives; otherwise moves its lock aside so the caller can retry. */
function takeOverIfStale(file: string, name: string): void {
  // Only a file is a zipfs lock; anything else at its path was put there by hand and is not ours to remove.
  const stats = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stats && !stats.isFile()) {
    throw new ZipfsError('SESSION_DAMAGED', `Session "${name}" cannot be locked: ${file} is ${stats.isDirectory() ? 'a folder' : 'not a file'}, not a zipfs lock. Remove it (rm -r '${file}'), then retry.`);
  }
  const current = readOwner(file);
  if (current && isAlive(current)) {
    throw new ZipfsError('LOCKED', `Session "${name}" is locked by process ${current.pid} (zipfs ${current.command}, since ${current.since}); wait for it to finish and retry.`);
  }
  const aside = `${file}.stale-${globalThis.crypto.randomUUID()}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return; // Another process moved it first; the next attempt decides.
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
    throw new ZipfsError('LOCKED', `Session "${name}" is locked by process ${moved.pid} (zipfs ${moved.command}); wait for it to finish and retry.`);
  }
  for (const leftover of fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith('lock.stale-'))) {
    fs.rmSync(path.join(path.dirname(file), leftover), { force: true });
  }
}

function release(file: string): void {
  held.delete(file);
  fs.rmSync(file, { force: true });
}

/** Releases the locks this process holds; called on SIGINT/SIGTERM before exit. */
export function releaseAllLocks(): void {
  for (const file of held) release(file);
}
