/**
 * What prune removes besides sessions: hidden folders in workspaces/ left by
 * interrupted opens and closes, and what syncs killed outright left beside the
 * zips of the sessions here (their lock and temporaries: zip-leftovers.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { workspacesDir } from '../session/data-dir.ts';
import { removeTree } from '../session/remove-tree.ts';
import { isDeadStaging } from '../open/staging.ts';
import { findZipLeftovers, removeZipLeftovers } from './zip-leftovers.ts';
import type { Session } from '../session/session-store.ts';
import { folderBytes } from '../session/folder-bytes.ts';
import type { Leftover } from '../session/prune.ts';

/**
 * What interrupted opens and syncs left, for prune: hidden folders in workspaces/ and what is beside each session's
 * zip.
 */
export function pruneLeftovers(home: string, sessions: Session[], dryRun: boolean): Leftover[] {
  return [...workspaceLeftovers(home, dryRun), ...zipLeftovers(sessions, dryRun)];
}

/**
 * Hidden folders in workspaces/ left by interrupted operations (opens whose process died, and closes): removed unless
 * `dryRun`.
 */
function workspaceLeftovers(home: string, dryRun: boolean): Leftover[] {
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
    const reason = isDeadStaging(entry.name)
      ? 'leftover of an interrupted open'
      : entry.name.startsWith('.closing-')
        ? 'leftover of an interrupted close'
        : undefined;
    if (!reason) continue;
    const dir = path.join(root, entry.name);
    found.push({ name: entry.name, reason, bytes: folderBytes(dir) });
    if (!dryRun) removeTree(dir);
  }
  return found;
}

/** The locks and temporaries of killed syncs beside the zips of `sessions`: removed unless `dryRun`. */
function zipLeftovers(sessions: Session[], dryRun: boolean): Leftover[] {
  const zips = [...new Set(sessions.map((session) => session.record.source_path))];
  return zips.flatMap((zip) =>
    (dryRun ? findZipLeftovers(zip) : removeZipLeftovers(zip)).map((leftover) => ({
      name: leftover.path,
      reason:
        `${leftover.kind === 'lock' ? 'lock' : 'temporary'} of a killed sync` +
        `${leftover.pid === undefined ? '' : ` (process ${leftover.pid} is gone)`}`,
      bytes: leftover.bytes,
    })),
  );
}
