/**
 * What `status` sees, fast where nothing changed: the folder is scanned once, and compared first
 * with the session's stat index (session/stat-index.ts) instead of the 4 MB of JSON a manifest of
 * 12,500 entries is. When every entry is untouched by stat, by the very rule the diff applies
 * (content-match.ts: the stat zipfs recorded, or the archive's size and mtime under the ctime
 * fence), and nothing on disk is new, that is the answer. Anything else, or an index missing,
 * stale or damaged, and the manifest is read as before and the same scan diffed against it
 * (workspace-diff.ts); the index is then written again for the manifest read.
 */
import { phase } from '../base/phase-trace.ts';
import { withBeneath } from '../files/beneath.ts';
import { MANIFEST_FORMAT, type SessionRecord } from '../session/manifest.ts';
import { sessionRecordProblem } from '../session/manifest-check.ts';
import type { Session } from '../session/session-store.ts';
import {
  TYPE_DIR,
  hasRecordedStat,
  lookAtManifest,
  readStatIndex,
  writeStatIndex,
  type ManifestStamp,
  type StatIndex,
} from '../session/stat-index.ts';
import type { Base } from '../workspace/base.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import type { Observed } from './observed.ts';
import { diffScanned, scanWorkspace, type WorkspaceDiff } from './workspace-diff.ts';
import type { Scanned } from './workspace-scan.ts';

/** What status shows of a diff. */
export type StatusDiff = Pick<
  WorkspaceDiff,
  'modified' | 'added' | 'deleted' | 'renamed' | 'unchangedCount' | 'unsupported'
>;

export interface StatusLook {
  diff: StatusDiff;
  /** The session record the diff is against. */
  record: SessionRecord;
  /** The base, read when first asked for (where the index answered, the manifest is not read unless asked). */
  base: () => Base;
}

/** The session record on line 1 of the manifest's bytes that the index is checked against. */
function recordOf(line: string | undefined): SessionRecord | undefined {
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return sessionRecordProblem(value, MANIFEST_FORMAT) ? undefined : (value as SessionRecord);
  } catch {
    return undefined;
  }
}

export function lookAtWorkspace(session: Session): StatusLook {
  const look = lookAtManifest(session.manifest);
  const record = recordOf(look?.firstLine);
  // A lazy session's base is its directory too (lazy-base.ts): its status reads both, as before.
  const index = look && record && !record.lazy ? readStatIndex(session.dir, look.stamp) : undefined;
  phase('status: stat index');
  return withBeneath(session.contents, (beneath) => {
    const scanned = scanWorkspace(beneath);
    if (index && unchangedByStat(index, scanned, record!.ctime_fence_ms)) {
      phase('status: unchanged by stat');
      let base: Base | undefined;
      return { diff: nothingChanged(index.count), record: record!, base: () => (base ??= workspaceOf(session).base()) };
    }
    const base = workspaceOf(session).base();
    phase('status: base');
    const diff = diffScanned(beneath, base, scanned);
    if (base.stamp && !(index && sameStamp(look!.stamp, base.stamp)))
      writeStatIndex(session.dir, base.whole(), base.stamp, { checkPaths: true });
    return { diff, record: base.record, base: () => base };
  });
}

function sameStamp(a: ManifestStamp, b: ManifestStamp): boolean {
  return a.size === b.size && a.crc32 === b.crc32;
}

function nothingChanged(count: number): StatusDiff {
  return { modified: [], added: [], deleted: [], renamed: [], unchangedCount: count, unsupported: [] };
}

/**
 * Whether the diff of `scanned` against the index's entries would find every entry unchanged by
 * its stat and nothing added: every entry at its path in the kind it was (a folder a folder, a
 * file or link a regular file whose stat proves it untouched), as many files and links on disk as
 * entries (the paths are distinct: stat-index.ts), and every folder that is not an entry holding
 * something (then the entries in it imply it). False sends status the long way, which decides.
 */
export function unchangedByStat(index: StatIndex, scanned: Scanned, fenceMs: number | undefined): boolean {
  const { items, folders, emptyDirs } = scanned;
  if (scanned.badNames.length > 0) return false;
  const { paths, flags } = index;
  let files = 0;
  let dirs = 0;
  for (let i = 0; i < index.count; i++) {
    const path = paths[i]!;
    const type = flags[i]! & 3;
    if (type === TYPE_DIR) {
      if (path === '') continue; // a root entry ("./"), the workspace itself
      if (items.get(path)?.kind !== 'dir') return false;
      dirs++;
      continue;
    }
    const now = items.get(path);
    if (now === undefined || now.kind !== 'file' || !untouchedAt(index, i, now, fenceMs)) return false;
    files++;
  }
  if (files !== items.size - folders.length) return false;
  return dirs === folders.length || emptyDirs.size === 0;
}

/** content-match.ts's `untouched`, on the index's columns: keep the two the same rule. */
function untouchedAt(index: StatIndex, i: number, now: Observed, fenceMs: number | undefined): boolean {
  if (hasRecordedStat(index, i))
    return (
      index.size[i] === now.size &&
      index.mtime[i] === now.mtime_ms &&
      index.ctime[i] === now.ctime_ms &&
      index.ino[i] === now.ino
    );
  return (
    fenceMs !== undefined &&
    now.size === index.size[i] &&
    Math.abs(now.mtime_ms - index.mtime[i]!) < 1 &&
    now.ctime_ms < fenceMs
  );
}
