/**
 * Whether a session holds work not yet in its zip: the scan status makes
 * (stat per path, content read only where the stat moved), so it works alike
 * for eager and lazy sessions and costs what `zipfs status` costs. close,
 * open --name's take-over and prune ask it before removing a session.
 */
import { diffWorkspace } from '../sync/workspace-diff.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { readManifest } from './manifest.ts';
import type { Session } from './session-store.ts';

export interface PendingChanges {
  count: number;
  /** "2 modified, 1 added, 0 deleted" (", 1 renamed" when there are renames). */
  summary: string;
}

/** Changed paths in a session's workspace, as close counts them before it refuses. */
export function pendingChanges(session: Session): PendingChanges {
  recoverInterruptedSync(session);
  const diff = diffWorkspace(session.contents, readManifest(session.manifest));
  const count = diff.modified.length + diff.added.length + diff.deleted.length + diff.renamed.length;
  return { count, summary: `${diff.modified.length} modified, ${diff.added.length} added, ${diff.deleted.length} deleted${diff.renamed.length ? `, ${diff.renamed.length} renamed` : ''}` };
}
