/**
 * What a sync that failed says: which of the workspace, the disk, the zip's
 * folder or another program stopped it, and that the zip was left as it was.
 */
import path from 'node:path';
import { ZipfsError, isSystemError, pathUnusable, permissionDenied, quote } from '../base/errors.ts';
import { showPathsOf } from '../base/descriptor-paths.ts';
import { invocation } from '../base/message-marks.ts';
import { isFileInUse } from '../rules/file-in-use.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

/**
 * A workspace path that was there at the scan and is gone now (workspace files are reached through beneath.ts's
 * descriptors).
 */
export function vanished(error: unknown): boolean {
  return (
    (isSystemError(error, 'ENOENT') && error.path?.startsWith('/proc/self/fd/') === true) ||
    (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')
  );
}

/**
 * What the scan found that no zip can hold faithfully, or that would bring outside content in: named, with the way out.
 */
export function refuseUnsupported(diff: WorkspaceDiff): void {
  if (diff.unsupported.length === 0) return;
  const shown = diff.unsupported.slice(0, 5).map((u) => `${quote(u.path)}: ${u.reason}`);
  const more =
    diff.unsupported.length > 5 ? `; and ${diff.unsupported.length - 5} more (${invocation('status')} lists them)` : '';
  throw new ZipfsError(
    'SYNC_FAILED',
    `The workspace holds what sync will not put in a zip: ${shown.join('; ')}${more}. Nothing was written; fix ` +
      `these and sync again.`,
  );
}

/** A failure of the writing and renaming, as the sync's error: `temporary` is the new archive beside `target`. */
export function syncFailure(error: unknown, { temporary, target }: { temporary: string; target: string }): ZipfsError {
  if (error instanceof ZipfsError && !vanished(error)) return error;
  if (vanished(error)) {
    return new ZipfsError(
      'SYNC_FAILED',
      `A file of the workspace vanished while sync was reading it (${showPathsOf(error as Error).message}); the ` +
        `source zip was left unchanged. Sync again once nothing else is changing the workspace.`,
    );
  }
  if (isFileInUse(error, { files: [temporary, target] })) {
    return new ZipfsError(
      'FILE_IN_USE',
      `The zip ${target} is in use by another program, which holds it open; sync left the zip and the workspace ` +
        `as they were. Close it there, then retry the sync.`,
    );
  }
  // the temporary's name beside the zip, too long: the zip is as it was
  if (isSystemError(error, 'ENAMETOOLONG', 'ELOOP')) return pathUnusable(error);
  if (isSystemError(error, 'ENOSPC', 'EDQUOT'))
    return new ZipfsError(
      'SYNC_FAILED',
      `The disk holding ${path.dirname(target)} is full; the source zip was left unchanged. Free some space ` +
        `there and sync again.`,
    );
  if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) {
    if (error.path !== temporary) return permissionDenied(error);
    return new ZipfsError(
      'PERMISSION_DENIED',
      `Sync writes the new archive beside the zip, but ${path.dirname(target)} is not writable by this user; the ` +
        `zip was left unchanged. Give your user write access to that folder, then sync again.`,
    );
  }
  return new ZipfsError(
    'SYNC_FAILED',
    `Sync failed (${showPathsOf(error as Error).message}); the source zip was left unchanged.`,
    { cause: error },
  );
}
