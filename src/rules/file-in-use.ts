/**
 * Whether a failed rename, replace or removal means another program holds the file open (FILE_IN_USE,
 * "close it there, then retry"), decided once for write, delete and sync:
 * - EBUSY on every platform: Windows reports a sharing violation so (a file opened without delete
 *   sharing), and so does Linux for a busy mount point, which no retry of ours frees either;
 * - ETXTBSY on every platform: a file that is being run cannot be written (Linux);
 * - EPERM and EACCES on Windows only (platform.ts, openFilesBlockRenames): replacing or removing a file
 *   another program holds open is "access denied" there, which the runtime reports as EPERM or EACCES.
 *   Elsewhere they mean a permission, and are said as such. Since Windows says "access denied" for a
 *   real permission too, a caller whose failure may come from other files (sync reads the whole
 *   workspace) names the files that can be held open (`files`), and EPERM or EACCES on another path
 *   stays a permission.
 */
import { isSystemError } from '../base/errors.ts';
import { hostPlatform, openFilesBlockRenames, type Platform } from './platform.ts';

export interface InUseQuestion {
  /** The platform the error came from (the host's by default). */
  platform?: Platform;
  /** Only these paths can be held open: "access denied" on another path is a permission. Any path when absent. */
  files?: readonly string[];
}

export function isFileInUse(error: unknown, { platform = hostPlatform(), files }: InUseQuestion = {}): boolean {
  if (isSystemError(error, 'EBUSY', 'ETXTBSY')) return true;
  if (!openFilesBlockRenames(platform) || !isSystemError(error, 'EPERM', 'EACCES')) return false;
  return files === undefined || (error.path !== undefined && files.includes(error.path));
}

/** Whether a failed rename is worth trying again after a pause: a file held open for a moment (Windows only). */
export function isRetryableInUse(error: unknown, platform: Platform = hostPlatform()): boolean {
  return openFilesBlockRenames(platform) && isFileInUse(error, { platform });
}
