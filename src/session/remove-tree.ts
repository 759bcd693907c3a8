/**
 * Removes a folder tree that zipfs owns, even when a user or a tool took the
 * permissions away from part of it (`chmod 000 contents/data`): as a normal
 * user, rm cannot list or empty such a folder, so close and prune would fail
 * halfway and leave a hidden leftover behind. The tree is walked by folder
 * descriptors (beneath.ts): no link inside it is followed, even one swapped in
 * during the removal, and folders deeper than the system's path limit go too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSystemError } from '../base/errors.ts';
import { Folder, namesIn, removeBeneath } from '../files/beneath.ts';

export function removeTree(dir: string): void {
  const parent = Folder.open(path.dirname(dir), '');
  if (!parent)
    throw Object.assign(new Error(`${path.dirname(dir)} is not a folder`), {
      code: 'ENOTDIR',
      path: path.dirname(dir),
    });
  const name = path.basename(dir);
  try {
    try {
      removeBeneath(parent, name);
      return;
    } catch (error) {
      if (!isSystemError(error, 'EACCES', 'EPERM')) throw error;
    }
    grantAccess(parent, name);
    removeBeneath(parent, name);
  } finally {
    parent.close();
  }
}

/**
 * Gives the owner back rwx on the folder `name` and every folder below it (its own folders: chmod needs no access to
 * them).
 */
function grantAccess(parent: Folder, name: string): void {
  const stats = fs.lstatSync(parent.child(name), { throwIfNoEntry: false });
  if (!stats?.isDirectory()) return; // chmod would follow a link
  try {
    fs.chmodSync(parent.child(name), 0o700);
  } catch {
    // Not ours: the removal that follows will name it.
  }
  let inner: Folder | undefined;
  try {
    inner = parent.openChild(name);
    if (!inner) return;
    for (const child of namesIn(inner)) grantAccess(inner, child);
  } catch {
    // Still unreadable: the removal that follows will name it.
  } finally {
    inner?.close();
  }
}
