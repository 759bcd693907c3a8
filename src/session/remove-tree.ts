/**
 * Removes a folder tree that zipfs owns, even when a user or a tool took the
 * permissions away from part of it (`chmod 000 contents/data`): as a normal
 * user, rm cannot list or empty such a folder, so close and prune would fail
 * halfway and leave a hidden leftover behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSystemError } from '../errors.ts';

export function removeTree(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true });
    return;
  } catch (error) {
    if (!isSystemError(error, 'EACCES', 'EPERM')) throw error;
  }
  grantAccess(dir);
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Gives the owner back rwx on every folder below `dir` (its own folders: chmod needs no access to them). */
function grantAccess(dir: string): void {
  try {
    fs.chmodSync(dir, 0o700);
  } catch {
    // Not ours: the removal that follows will name it.
  }
  let children: fs.Dirent[];
  try {
    children = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const child of children) if (child.isDirectory()) grantAccess(path.join(dir, child.name));
}
