/**
 * The limit on what all workspaces hold together (ZIPFS_MAX_TOTAL_BYTES), as
 * extracted: checked before an open extracts an archive, and before a lazy
 * session extracts more of one.
 */
import { ZipfsError } from '../base/errors.ts';
import { humanBytes } from '../format/units.ts';
import type { Limits } from '../rules/limits.ts';
import { listSessions, type Session } from './session-store.ts';

/**
 * Refuses `adding` more bytes when the workspaces under `home` would pass the limit; `what` says what adds them ("this
 * archive adds").
 */
export function assertRoomInWorkspaces(
  home: string,
  limits: Limits,
  adding: number,
  what: string,
  sessions: Session[] = listSessions(home),
): void {
  const used = sessions.reduce((sum, s) => sum + s.record.extracted_size_bytes, 0);
  if (used + adding > limits.maxTotalBytes) {
    throw new ZipfsError(
      'LIMIT_EXCEEDED',
      `Workspaces hold ${humanBytes(used)} and ${what} ${humanBytes(adding)}, over the ` +
        `${humanBytes(limits.maxTotalBytes)} limit. Close or prune sessions, or raise ZIPFS_MAX_TOTAL_BYTES.`,
    );
  }
}
