/**
 * prune: removes stale (or all) sessions and the leftovers of interrupted
 * operations. A session another process holds locked is skipped, not removed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../errors.ts';
import { STAGING_PREFIX, workspacesDir } from './data-dir.ts';
import { lockedByOther, withSessionLock } from './lock.ts';
import { readSessionRecord } from './manifest.ts';
import { listSessions, removeSession, type Session } from './session-store.ts';
import { isDeadStaging } from '../open/staging.ts';

export interface PruneRequest {
  home: string;
  all: boolean;
  /** Sessions not used for this long are stale. */
  staleMs?: number;
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

/** Bytes a folder takes (file sizes; links count as themselves). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(full) : fs.lstatSync(full).size;
  }
  return total;
}

/** Folders in workspaces/ that are no session: interrupted opens and closes, and folders without a session record. */
function leftovers(home: string, sessions: Session[]): { dir: string; reason: string }[] {
  const root = workspacesDir(home);
  const names = new Set(sessions.map((s) => s.record.name));
  const found: { dir: string; reason: string }[] = [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!entry.isDirectory() || names.has(entry.name)) continue;
    const dir = path.join(root, entry.name);
    if (entry.name.startsWith(STAGING_PREFIX)) {
      if (isDeadStaging(entry.name)) found.push({ dir, reason: 'leftover of an interrupted open' });
    } else if (entry.name.startsWith('.closing-')) {
      found.push({ dir, reason: 'leftover of an interrupted close' });
    } else if (!entry.name.startsWith('.') && !readSessionRecord(path.join(dir, 'manifest.jsonl'))) {
      found.push({ dir, reason: 'broken workspace without a session record' });
    }
  }
  return found;
}

export async function prune(request: PruneRequest): Promise<PruneResult> {
  if (!request.all && request.staleMs === undefined) {
    throw new ZipfsError('INVALID_INPUT', 'Nothing to prune: pass all=true to remove every session, or stale with a duration (e.g. stale="7d") to remove sessions unused for that long (CLI: --all or --stale 7d).');
  }
  const result: PruneResult = { pruned: [], skipped: [], freed_bytes: 0 };
  const now = Date.now();
  const sessions = listSessions(request.home);
  for (const session of sessions) {
    const idle = now - session.lastAccessedAt.getTime();
    const reason = request.all ? 'all' : idle > request.staleMs! ? `stale (${age(idle)})` : undefined;
    if (!reason) continue;
    const holder = lockedByOther(session);
    if (holder) {
      result.skipped.push({ name: session.record.name, reason: `locked by process ${holder.pid} (zipfs ${holder.command})` });
      continue;
    }
    const bytes = folderBytes(session.dir);
    if (!request.dryRun) {
      try {
        await withSessionLock(session, 'prune', () => removeSession(session));
      } catch (error) {
        if (error instanceof ZipfsError && error.code === 'LOCKED') {
          result.skipped.push({ name: session.record.name, reason: error.message });
          continue;
        }
        throw error;
      }
    }
    result.pruned.push({ id: session.record.id, name: session.record.name, reason });
    result.freed_bytes += bytes;
  }
  for (const leftover of leftovers(request.home, sessions)) {
    result.freed_bytes += folderBytes(leftover.dir);
    if (!request.dryRun) fs.rmSync(leftover.dir, { recursive: true, force: true });
    result.pruned.push({ id: '', name: path.basename(leftover.dir), reason: leftover.reason });
  }
  return result;
}
