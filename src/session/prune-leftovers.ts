/**
 * What prune removes besides sessions: hidden folders in workspaces/ left by
 * interrupted opens and closes, and what syncs killed outright left beside the
 * zips of the sessions here (their lock and temporaries: zip-leftovers.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { workspacesDir } from './data-dir.ts';
import { removeTree } from './remove-tree.ts';
import { isDeadStaging } from '../open/staging.ts';
import { findZipLeftovers, removeZipLeftovers } from '../sync/zip-leftovers.ts';
import type { Session } from './session-store.ts';

export interface Leftover {
  /** A folder's name in workspaces/, or a leftover's path beside a zip. */
  name: string;
  reason: string;
  bytes: number;
}

/** Bytes a folder takes (file sizes; links count as themselves). What cannot be read counts as nothing. */
export function folderBytes(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    try {
      total += entry.isDirectory() ? folderBytes(full) : fs.lstatSync(full).size;
    } catch {
      // Gone or unreadable meanwhile.
    }
  }
  return total;
}

/** Hidden folders in workspaces/ left by interrupted operations (opens whose process died, and closes): removed unless `dryRun`. */
export function workspaceLeftovers(home: string, dryRun: boolean): Leftover[] {
  const root = workspacesDir(home);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  const found: Leftover[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const reason = isDeadStaging(entry.name) ? 'leftover of an interrupted open' : entry.name.startsWith('.closing-') ? 'leftover of an interrupted close' : undefined;
    if (!reason) continue;
    const dir = path.join(root, entry.name);
    found.push({ name: entry.name, reason, bytes: folderBytes(dir) });
    if (!dryRun) removeTree(dir);
  }
  return found;
}

/** The locks and temporaries of killed syncs beside the zips of `sessions`: removed unless `dryRun`. */
export function zipLeftovers(sessions: Session[], dryRun: boolean): Leftover[] {
  const zips = [...new Set(sessions.map((session) => session.record.source_path))];
  return zips.flatMap((zip) =>
    (dryRun ? findZipLeftovers(zip) : removeZipLeftovers(zip)).map((leftover) => ({
      name: leftover.path,
      reason: `${leftover.kind === 'lock' ? 'lock' : 'temporary'} of a killed sync${leftover.pid === undefined ? '' : ` (process ${leftover.pid} is gone)`}`,
      bytes: leftover.bytes,
    })),
  );
}
