import fs from 'node:fs';
import path from 'node:path';
import { STAGING_PREFIX, workspacesDir } from '../session/data-dir.ts';
import { isProcessAlive } from '../session/process-alive.ts';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import { removeTree } from '../session/remove-tree.ts';

/** A hidden folder to extract into; it becomes a session only by one rename at the end. */
export function createStaging(home: string): string {
  const root = workspacesDir(home);
  fs.mkdirSync(root, { recursive: true });
  const dir = path.join(root, `${STAGING_PREFIX}${process.pid}-${globalThis.crypto.randomUUID()}`);
  fs.mkdirSync(dir);
  removeOnExit(dir);
  return dir;
}

export function discardStaging(dir: string): void {
  keepOnExit(dir);
  removeTree(dir); // one entry at a time through folder handles: Wine 8.0 cannot remove a tree in one call
}

/** Forgets a staging folder that has been renamed into place. */
export function releaseStaging(dir: string): void {
  keepOnExit(dir);
}

/** Whether a folder name is a staging folder of an open whose process died. */
export function isDeadStaging(name: string): boolean {
  if (!name.startsWith(STAGING_PREFIX)) return false;
  const pid = Number(name.slice(STAGING_PREFIX.length).split('-')[0]);
  return Number.isInteger(pid) && pid !== process.pid && !isProcessAlive(pid);
}

/** Removes staging folders left by opens whose process died (SIGKILL, power loss). */
export function removeDeadStaging(home: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(workspacesDir(home));
  } catch {
    return;
  }
  for (const name of names) {
    if (isDeadStaging(name)) removeTree(path.join(workspacesDir(home), name));
  }
}
