/**
 * Open's lock on one zip, in the data folder: two `open`s of one zip at the
 * same moment must end as they do one after the other, with the second
 * sharing the first's session (not `app` and `app-2`). Each open extracts
 * into its own staging folder without it; the lock is held only around
 * "is there a session of this zip now? if not, publish mine" (open/publish-session.ts,
 * publishOnce), a lookup and a rename. It is keyed by the zip's resolved path,
 * lower-cased (two spellings of one zip on a folder that folds case meet at
 * one lock; two zips that differ only in case merely take turns), and lives
 * in `<data folder>/locks/`, made when first needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { withLock, type LockWait } from './lock.ts';
import { comparablePath } from './same-file.ts';

export function openLockPath(home: string, zipPath: string): string {
  // Bun's hasher, not node:crypto: loading that module (and the streams under it) cost every command ~4 ms.
  const key = new Bun.CryptoHasher('sha256').update(comparablePath(zipPath).toLowerCase()).digest('hex').slice(0, 32);
  return path.join(home, 'locks', `open-${key}`);
}

/** Runs `fn` holding open's lock on the zip at `zipPath`, against every other open of it sharing this data folder. */
export function withOpenLock<T>(home: string, zipPath: string, fn: () => T | Promise<T>, wait: LockWait): Promise<T> {
  const file = openLockPath(home, zipPath);
  const notWritable = () =>
    new ZipfsError(
      'PERMISSION_DENIED',
      `Open cannot take its lock in ${path.dirname(file)}: it is not writable by this user. Give your user write ` +
        `access to the data folder ${home}, then retry.`,
    );
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (error) {
    if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) throw notWritable();
    throw new ZipfsError(
      'SESSION_DAMAGED',
      `Open cannot take its lock: ${path.dirname(file)} cannot be made as a folder ` +
        `(${(error as Error).message}). Move what is there away, then retry.`,
    );
  }
  return withLock(
    {
      file,
      subject: `Opening ${zipPath}`,
      blockedCode: 'SESSION_DAMAGED',
      gone: () =>
        new ZipfsError(
          'SESSION_NOT_FOUND',
          `The data folder ${home} was removed while opening ${zipPath}; open again.`,
        ),
      notWritable,
    },
    'open',
    fn,
    wait,
  );
}
