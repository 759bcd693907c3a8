/**
 * Whether two paths name one file, as the file system decides: on a folder
 * that folds case, `Z:\tmp\A.zip` and `z:\tmp\a.zip` are one zip, and a
 * working folder typed in another case is still the workspace. The file's
 * identity (device and inode, or Windows's file index) settles it; paths are
 * compared only for what does not exist (yet).
 */
import fs from 'node:fs';
import path from 'node:path';
import { foldsCaseByDefault } from '../rules/platform.ts';

export type FileIdentity = string;

export function identityOf(file: string): FileIdentity | undefined {
  let stats: fs.Stats | undefined;
  try {
    stats = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined; // not reachable (a file where a folder should be, no access): no identity to compare
  }
  // An inode of 0 is no identity (some Windows file systems): fall back to the path.
  return stats && stats.ino !== 0 ? `${stats.dev}:${stats.ino}` : undefined;
}

/** A path as one to compare: resolved, and on systems whose default folders fold case, lower-cased. */
export function comparablePath(file: string): string {
  let resolved: string;
  try {
    resolved = fs.realpathSync(file);
  } catch {
    resolved = path.resolve(file);
  }
  return foldsCaseByDefault() ? resolved.toLowerCase() : resolved;
}

export function sameFile(a: string, b: string): boolean {
  const [ia, ib] = [identityOf(a), identityOf(b)];
  if (ia !== undefined && ib !== undefined) return ia === ib;
  return comparablePath(a) === comparablePath(b);
}
