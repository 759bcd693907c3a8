/**
 * Whether a folder tells names apart by case. It is a property of the file
 * system, not of the platform (a case-sensitive APFS volume on macOS, a
 * case-sensitive folder on Windows, a casefold ext4 folder on Linux), so it
 * is probed where the workspaces live when a session is made, and recorded
 * in the session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSystemError } from '../base/errors.ts';

/** Whether names in `dir` fold case; undefined when no probe can be made there (not writable: the caller decides). */
export function foldsCase(dir: string): boolean | undefined {
  const name = `.zipfs-case-probe-${process.pid}-${globalThis.crypto.randomUUID()}`;
  const file = path.join(dir, name);
  try {
    fs.writeFileSync(file, '', { flag: 'wx' });
  } catch (error) {
    if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS', 'ENOENT')) return undefined;
    throw error;
  }
  try {
    return fs.existsSync(path.join(dir, name.toUpperCase()));
  } finally {
    fs.rmSync(file, { force: true });
  }
}
