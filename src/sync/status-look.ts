/**
 * What `status` sees, fast where nothing changed: the folder is walked once and compared as it goes
 * with the session's stat index (session/stat-index.ts, untouched-walk.ts), instead of the 4 MB of
 * JSON a manifest of 12,500 entries is; where that walk cannot vouch, or the last status found a
 * change (CHANGED_HINT), it is scanned and compared with the index again, by stat-verdict.ts.
 * When every entry is untouched by stat, by the very rule the diff applies (content-match.ts: the
 * stat zipfs recorded, or the archive's size and mtime under the ctime fence), and nothing on disk
 * is new, that is the answer. Anything else, or an index missing,
 * stale or damaged, and the manifest is read as before and the same scan diffed against it
 * (workspace-diff.ts); the index is then written again for the manifest read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { phase } from '../base/phase-trace.ts';
import { withBeneath } from '../files/beneath.ts';
import { MANIFEST_FORMAT, type SessionRecord } from '../session/manifest.ts';
import { sessionRecordProblem } from '../session/manifest-check.ts';
import type { Session } from '../session/session-store.ts';
import {
  type StatIndex,
  lookAtManifest,
  readStatIndex,
  writeStatIndex,
  writeStatIndexInOrder,
} from '../session/stat-index.ts';
import type { Base } from '../workspace/base.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { verdictByPath, verdictInOrder } from './stat-verdict.ts';
import { diffScanned, type WorkspaceDiff } from './workspace-diff.ts';
import { untouchedInOrder } from './untouched-walk.ts';
import { byPath, scanList } from './workspace-scan.ts';

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
    const fenceMs = record?.ctime_fence_ms;
    const walkHint = path.join(session.dir, CHANGED_HINT);
    const changedLastTime = index !== undefined && fs.existsSync(walkHint);
    // Untouched, the common case: told while walking, with nothing kept of what was seen.
    if (index && !changedLastTime && untouchedInOrder(beneath.folder(''), index, fenceMs)) {
      phase('status: untouched walk');
      return clean(session, index, record!);
    }
    phase('diff: before scan');
    const list = scanList(beneath.folder(''));
    phase('diff: scan');
    let verdict = index ? verdictInOrder(index, list, fenceMs) : 'changed';
    if (index && verdict === 'unordered') {
      const byIndex = verdictByPath(index, list, fenceMs);
      verdict = byIndex.clean ? 'clean' : 'changed';
      // In the scan's order, so the next status walks it without a lookup per path.
      if (byIndex.clean) writeStatIndexInOrder(session.dir, index, byIndex.order, look!.stamp);
    }
    if (verdict === 'clean') {
      phase('status: unchanged by stat');
      if (changedLastTime) removeQuietly(walkHint);
      return clean(session, index!, record!);
    }
    if (index && !changedLastTime) writeQuietly(walkHint);
    // Without an index for this manifest, one is made of the manifest read (stamped with the text parsed).
    const base = workspaceOf(session).base({ stamp: !index });
    phase('status: base');
    const diff = diffScanned(beneath, base, byPath(list));
    if (base.stamp) writeStatIndex(session.dir, base.whole(), base.stamp);
    return { diff, record: base.record, base: () => base };
  });
}

/**
 * In the session's folder while status last found the workspace changed by stat: the next status then scans at once,
 * not after a walk (untouched-walk.ts) that would stop at the change and be done again, up to a whole walk more (a
 * change near its end: +30 ms at 12,500 files). Only a hint of which way is faster: both give the same answer.
 */
const CHANGED_HINT = 'status-changed';

/** Best effort, as for the index: a hint that cannot be written or removed only costs time. */
function writeQuietly(file: string): void {
  try {
    fs.writeFileSync(file, '');
  } catch {}
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {}
}

/** The look of a workspace found unchanged by stat: the base is read only when asked for. */
function clean(session: Session, index: StatIndex, record: SessionRecord): StatusLook {
  let base: Base | undefined;
  return { diff: nothingChanged(index.count), record, base: () => (base ??= workspaceOf(session).base()) };
}

function nothingChanged(count: number): StatusDiff {
  return { modified: [], added: [], deleted: [], renamed: [], unchangedCount: count, unsupported: [] };
}
