/**
 * prune: removes stale, orphaned (or all) sessions and the leftovers of
 * interrupted operations. A session another process holds locked is skipped,
 * not removed, and so is one whose manifest cannot be read, unless all are
 * asked for. A session whose owner (the job that opened it: owner.ts) still
 * runs is skipped too unless it is the caller's own or include_live is given:
 * in a data folder shared by parallel CI jobs, one job's cleanup must not
 * remove another's unsynced work between its commands.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../errors.ts';
import { workspacesDir } from './data-dir.ts';
import { lockedByOther, withSessionLock } from './lock.ts';
import { removeTree } from './remove-tree.ts';
import { removeSession, removeSessionFolder, scanWorkspaces } from './session-store.ts';
import { removeDeadSyncTemporaries } from '../sync/sync-files.ts';
import { isDeadStaging } from '../open/staging.ts';
import { invocation, param } from '../message-marks.ts';
import { ownerState, sameOwner, type SessionOwner } from './owner.ts';

export interface PruneRequest {
  home: string;
  all: boolean;
  /** Sessions not used for this long are stale. */
  staleMs?: number;
  /** Sessions whose owner process is gone (a killed job's). */
  orphaned?: boolean;
  /** Remove sessions of other live owners too. */
  includeLive?: boolean;
  /** The caller's job: its own sessions are never spared as another's. */
  caller?: SessionOwner;
  dryRun: boolean;
}

export interface PruneResult {
  pruned: { id: string; name: string; reason: string }[];
  skipped: { name: string; reason: string }[];
  freed_bytes: number;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30m", "24h", "7d", "2w" (and "90s") in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text.trim());
  if (!match) throw new ZipfsError('INVALID_INPUT', `Invalid argument stale: "${text}" is not a duration; write a number and a unit: 30m, 24h, 7d or 2w.`);
  return Number(match[1]) * UNITS[match[2]!.toLowerCase()]!;
}

/** How long, in the unit that reads best: "3d", "5h", "12m". */
function age(ms: number): string {
  if (ms >= UNITS.d!) return `${Math.floor(ms / UNITS.d!)}d`;
  if (ms >= UNITS.h!) return `${Math.floor(ms / UNITS.h!)}h`;
  return `${Math.floor(ms / UNITS.m!)}m`;
}

/** Bytes a folder takes (file sizes; links count as themselves). What cannot be read counts as nothing. */
function folderBytes(dir: string): number {
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

/** Hidden folders in workspaces/ left by interrupted operations: opens whose process died, and closes. */
function leftovers(home: string): { dir: string; reason: string }[] {
  const root = workspacesDir(home);
  const found: { dir: string; reason: string }[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const dir = path.join(root, entry.name);
    if (isDeadStaging(entry.name)) found.push({ dir, reason: 'leftover of an interrupted open' });
    else if (entry.name.startsWith('.closing-')) found.push({ dir, reason: 'leftover of an interrupted close' });
  }
  return found;
}

export async function prune(request: PruneRequest): Promise<PruneResult> {
  if (!request.all && request.staleMs === undefined && !request.orphaned) {
    throw new ZipfsError('INVALID_INPUT', `Nothing to prune: pass ${param('all')} to remove every session, ${param('stale', '7d')} (any duration: 30m, 24h, 2w) to remove sessions unused for that long, or ${param('orphaned')} to remove those whose job's process is gone.`);
  }
  const result: PruneResult = { pruned: [], skipped: [], freed_bytes: 0 };
  const now = Date.now();
  const { sessions, damaged } = scanWorkspaces(request.home);
  for (const session of sessions) {
    const idle = now - session.lastAccessedAt.getTime();
    const owner = session.record.owner;
    const state = ownerState(owner);
    const reason = request.all ? 'all' : request.staleMs !== undefined && idle > request.staleMs ? `stale (${age(idle)})` : request.orphaned && state === 'gone' ? `orphaned (process ${owner!.pid} is gone)` : undefined;
    if (!reason) continue;
    if (state === 'alive' && !request.includeLive && !sameOwner(owner, request.caller)) {
      result.skipped.push({ name: session.record.name, reason: `its owner, process ${owner!.pid}, is still running (the job that opened it); pass ${param('include_live')} to remove it anyway` });
      continue;
    }
    const holder = lockedByOther(session);
    if (holder) {
      result.skipped.push({ name: session.record.name, reason: `locked by process ${holder.pid} (zipfs ${holder.command})` });
      continue;
    }
    const bytes = folderBytes(session.dir);
    if (!request.dryRun) {
      try {
        await withSessionLock(session, 'prune', () => removeSession(session), { waitMs: 0 }); // a session in use is skipped, not waited for
      } catch (error) {
        if (error instanceof ZipfsError && error.code === 'LOCKED') {
          result.skipped.push({ name: session.record.name, reason: error.message });
          continue;
        }
        throw error;
      }
      removeDeadSyncTemporaries(session.record.source_path);
    }
    result.pruned.push({ id: session.record.id, name: session.record.name, reason });
    result.freed_bytes += bytes;
  }
  // A session whose manifest cannot be read (damaged, or another zipfs version's) may hold
  // unsynced work, and how long it went unused is unknown: only `all` removes it.
  for (const broken of damaged) {
    if (!request.all) {
      result.skipped.push({ name: broken.name, reason: `damaged: ${broken.reason}; remove it with ${invocation('prune', { all: true })} or ${invocation('close', { session: broken.name, force: true })}` });
      continue;
    }
    result.freed_bytes += folderBytes(broken.dir);
    if (!request.dryRun) removeSessionFolder(broken.dir);
    result.pruned.push({ id: '', name: broken.name, reason: `all (damaged: ${broken.reason})` });
  }
  for (const leftover of leftovers(request.home)) {
    result.freed_bytes += folderBytes(leftover.dir);
    if (!request.dryRun) removeTree(leftover.dir);
    result.pruned.push({ id: '', name: path.basename(leftover.dir), reason: leftover.reason });
  }
  return result;
}
