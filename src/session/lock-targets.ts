/**
 * Where each lock's file is, and what its messages say: a session's lock in its folder, a zip's beside the zip
 * (lock.ts takes them).
 */
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import type { Session } from './session-store.ts';

export function lockPath(session: Session): string {
  return path.join(session.dir, 'lock');
}

/** What a lock guards, for its file's place and the messages about it. */
export interface LockTarget {
  file: string;
  /** 'Session "q4"', 'The zip /data/q4.zip': the subject of messages. */
  subject: string;
  /** The folder the lock goes in is gone. */
  gone(): ZipfsError;
  /** The folder the lock goes in is not writable. */
  notWritable(): ZipfsError;
  /** The code when something that is not a lock file sits at its path. */
  blockedCode: 'SESSION_DAMAGED' | 'SYNC_FAILED';
}

export function sessionTarget(session: Session): LockTarget {
  const name = session.record.name;
  const file = lockPath(session);
  return {
    file,
    subject: `Session "${name}"`,
    blockedCode: 'SESSION_DAMAGED',
    gone: () => new ZipfsError('SESSION_NOT_FOUND', `Session "${name}" was closed by another process.`),
    notWritable: () =>
      new ZipfsError(
        'PERMISSION_DENIED',
        `Session "${name}" cannot be locked: its folder ${path.dirname(file)} is not writable by this user. Give ` +
          `your user write access to it (chmod u+rwx), then retry.`,
      ),
  };
}

/** The lock beside a zip: `.<name>.zipfs-lock`, hidden like sync's temporaries, there only while a sync writes. */
export function zipLockPath(zipPath: string): string {
  return path.join(path.dirname(zipPath), `.${path.basename(zipPath)}.zipfs-lock`);
}

export function zipTarget(zipPath: string): LockTarget {
  const dir = path.dirname(zipPath);
  return {
    file: zipLockPath(zipPath),
    subject: `The zip ${zipPath}`,
    blockedCode: 'SYNC_FAILED',
    gone: () =>
      new ZipfsError(
        'ZIP_NOT_FOUND',
        `The folder of ${zipPath} no longer exists (moved or deleted); put it back, then sync again.`,
      ),
    notWritable: () =>
      new ZipfsError(
        'PERMISSION_DENIED',
        `Sync writes the new archive beside the zip, but ${dir} is not writable by this user; the zip was left ` +
          `unchanged. Give your user write access to that folder, then sync again.`,
      ),
  };
}
