/**
 * prune: removes stale, orphaned (or all) sessions and the leftovers of
 * interrupted operations. A session another process is working in (its lock
 * held, or marked in use: in-use.ts) is skipped as busy, not removed, and so
 * is one whose manifest cannot be read, unless all are asked for. A session
 * holding unsynced changes is work, not litter: kept and listed in skipped
 * unless discard_changes is given (an orphan may be an agent's whose shell
 * ended right after open: owner.ts). A session whose owner (the job that opened it: owner.ts) still
 * runs is skipped too unless it is the caller's own or include_live is given:
 * in a data folder shared by parallel CI jobs, one job's cleanup must not
 * remove another's unsynced work between its commands.
 */
import { ZipfsError } from '../base/errors.ts';
import { plural } from '../format/units.ts';
import { withSessionLock, type LockOwner } from './lock.ts';
import { busyWith } from './in-use.ts';
import { removeSession, removeSessionFolder, scanWorkspaces, type Session } from './session-store.ts';
import { folderBytes } from './folder-bytes.ts';
import { invocation, param } from '../base/message-marks.ts';
import { ownerState, sameOwner, type SessionOwner } from './owner.ts';
import { zipPlace } from './manifest.ts';

export interface PruneRequest {
  home: string;
  all: boolean;
  /** Sessions not used for this long are stale. */
  staleMs?: number;
  /** Sessions whose owner process is gone (a killed job's). */
  orphaned?: boolean;
  /** Remove sessions of other live owners too. */
  includeLive?: boolean;
  /** Remove sessions that hold unsynced changes too (kept and listed in skipped otherwise). */
  discardChanges?: boolean;
  /** The caller's job: its own sessions are never spared as another's. */
  caller?: SessionOwner;
  dryRun: boolean;
  /** Sessions of zips this says no to are left alone, as if not there (an MCP server's roots). */
  reaches?(zipPath: string): boolean;
  /**
   * What the layers above know and this one does not (they import it): a session's unsynced
   * changes (the status scan: sync/unsynced.ts), and what interrupted opens and syncs left
   * (sync/prune-leftovers.ts), removed unless `dryRun`.
   */
  pendingChanges(session: Session): PendingChanges;
  leftovers(sessions: Session[], dryRun: boolean): Leftover[];
}

export interface PendingChanges {
  count: number;
  /** "2 modified, 1 added, 0 deleted" (", 1 renamed" when there are renames). */
  summary: string;
}

export interface Leftover {
  /** A folder's name in workspaces/, or a leftover's path beside a zip. */
  name: string;
  reason: string;
  bytes: number;
}

export interface PruneResult {
  pruned: { id: string; name: string; reason: string }[];
  skipped: { name: string; reason: string }[];
  freed_bytes: number;
  /** True when nothing was removed: the lists say what would be. */
  dry_run: boolean;
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** "30m", "24h", "7d", "2w" (and "90s") in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text.trim());
  if (!match)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument stale: "${text}" is not a duration; write a number and a unit: 30m, 24h, 7d or 2w.`,
    );
  return Number(match[1]) * UNITS[match[2]!.toLowerCase()]!;
}

/** How long, in the unit that reads best: "3d", "5h", "12m". */
function age(ms: number): string {
  if (ms >= UNITS.d!) return `${Math.floor(ms / UNITS.d!)}d`;
  if (ms >= UNITS.h!) return `${Math.floor(ms / UNITS.h!)}h`;
  return `${Math.floor(ms / UNITS.m!)}m`;
}

export async function prune(request: PruneRequest): Promise<PruneResult> {
  if (!request.all && request.staleMs === undefined && !request.orphaned) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Nothing to prune: pass ${param('all')} to remove every session, ${param('stale', '7d')} (any duration: ` +
        `30m, 24h, 2w) to remove sessions unused for that long, or ${param('orphaned')} to remove those whose ` +
        `job's process is gone.`,
    );
  }
  const result: PruneResult = { pruned: [], skipped: [], freed_bytes: 0, dry_run: request.dryRun };
  const now = Date.now();
  const scanned = scanWorkspaces(request.home);
  const sessions = scanned.sessions.filter((s) => request.reaches?.(zipPlace(s.record)) ?? true);
  // A damaged session's zip is unknown: a caller with roots leaves it to the CLI.
  const damaged = request.reaches ? [] : scanned.damaged;
  for (const session of sessions) {
    const idle = now - session.lastAccessedAt.getTime();
    const owner = session.record.owner;
    const state = ownerState(owner);
    const reason = request.all
      ? 'all'
      : request.staleMs !== undefined && idle > request.staleMs
        ? `stale (${age(idle)})`
        : request.orphaned && state === 'gone'
          ? `orphaned (process ${owner!.pid} is gone)`
          : undefined;
    if (!reason) continue;
    const name = session.record.name;
    if (state === 'alive' && !request.includeLive && !sameOwner(owner, request.caller)) {
      result.skipped.push({
        name,
        reason:
          `its owner, process ${owner!.pid}, is still running (the job that opened it); pass ` +
          `${param('include_live')} to remove it anyway`,
      });
      continue;
    }
    const holder = busyWith(session);
    if (holder) {
      result.skipped.push({ name, reason: busyReason(holder) });
      continue;
    }
    const bytes = folderBytes(session.dir);
    let outcome: { kept: string } | { discarded?: string };
    try {
      // A session in use is skipped, not waited for; its changes are counted under its lock, so no write lands between.
      outcome = request.dryRun
        ? weigh(session, request)
        : await withSessionLock(session, 'prune', () => removeUnlessWork(session, request), { waitMs: 0 });
    } catch (error) {
      if (error instanceof ZipfsError && error.code === 'LOCKED') {
        result.skipped.push({ name, reason: error.message });
        continue;
      }
      throw error;
    }
    if ('kept' in outcome) {
      result.skipped.push({ name, reason: outcome.kept });
      continue;
    }
    result.pruned.push({
      id: session.record.id,
      name,
      reason: outcome.discarded ? `${reason}; ${outcome.discarded}` : reason,
    });
    result.freed_bytes += bytes;
  }
  // A session whose manifest cannot be read (damaged, or another zipfs version's) may hold
  // unsynced work, and how long it went unused is unknown: only `all` removes it.
  for (const broken of damaged) {
    if (!request.all) {
      result.skipped.push({
        name: broken.name,
        reason:
          `damaged: ${broken.reason}; remove it with ${invocation('prune', { all: true })} or ` +
          `${invocation('close', { session: broken.name, force: true })}`,
      });
      continue;
    }
    result.freed_bytes += folderBytes(broken.dir);
    if (!request.dryRun) removeSessionFolder(broken.dir);
    result.pruned.push({ id: '', name: broken.name, reason: `all (damaged: ${broken.reason})` });
  }
  for (const leftover of [...request.leftovers(sessions, request.dryRun)]) {
    result.freed_bytes += leftover.bytes;
    result.pruned.push({ id: '', name: leftover.name, reason: leftover.reason });
  }
  return result;
}

function busyReason(holder: LockOwner): string {
  return `busy: process ${holder.pid} is working in it (zipfs ${holder.command}); retry when it has finished`;
}

/**
 * Whether prune may remove the session: one with unsynced changes is work, not litter, kept unless
 * the caller discards changes; one whose changes cannot be read (SESSION_DAMAGED) is kept alike.
 */
function weigh(session: Session, request: PruneRequest): { kept: string } | { discarded?: string } {
  const name = session.record.name;
  let pending: PendingChanges;
  try {
    pending = request.pendingChanges(session);
  } catch (error) {
    if (!(error instanceof ZipfsError)) throw error;
    if (request.discardChanges) return { discarded: `its changes could not be read (${error.code}), discarded` };
    return {
      kept:
        `kept: its changes cannot be read (${error.message}); pass ${param('discard_changes')} to remove it ` +
        `anyway, or ${invocation('close', { session: name, force: true })}`,
    };
  }
  if (pending.count === 0) return {};
  if (request.discardChanges)
    return { discarded: `${plural(pending.count, 'unsynced change')} discarded (${pending.summary})` };
  return {
    kept:
      `kept: ${plural(pending.count, 'unsynced change')} (${pending.summary}); sync them ` +
      `(${invocation('sync', { session: name })}) or discard them ` +
      `(${invocation('close', { session: name, force: true })}), or pass ${param('discard_changes')}`,
  };
}

function removeUnlessWork(session: Session, request: PruneRequest): { kept: string } | { discarded?: string } {
  const outcome = weigh(session, request);
  if (!('kept' in outcome)) removeSession(session);
  return outcome;
}
