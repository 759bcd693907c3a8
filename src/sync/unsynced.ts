/**
 * Whether a session holds work not yet in its zip: the scan status makes
 * (stat per path, content read only where the stat moved), so it works alike
 * for every kind of session and costs what `zipfs status` costs (status-look.ts). close,
 * open --name's take-over and prune ask it before removing a session.
 */
import { lookAtWorkspace } from './status-look.ts';
import { recoverInterruptedSync } from './sync-archive.ts';
import type { Session } from '../session/session-store.ts';
import type { PendingChanges } from '../session/prune.ts';

/** Changed paths in a session's workspace, as close counts them before it refuses. */
export function pendingChanges(session: Session): PendingChanges {
  recoverInterruptedSync(session);
  const { diff } = lookAtWorkspace(session);
  const count = diff.modified.length + diff.added.length + diff.deleted.length + diff.renamed.length;
  return {
    count,
    summary:
      `${diff.modified.length} modified, ${diff.added.length} added, ${diff.deleted.length} deleted` +
      `${diff.renamed.length ? `, ${diff.renamed.length} renamed` : ''}`,
  };
}
