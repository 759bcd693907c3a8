/**
 * Sync never writes an archive that zipfs open would refuse (workspace/reopen-check.ts): where
 * open's limits are on the whole archive, the entry count and the extracted bytes of the archive
 * a sync would write are checked from the workspace's stats, before anything is written.
 */
import { ZipfsError } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import { LEFT } from '../workspace/reopen-check.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

/** Entry count and extracted bytes of the archive a sync would write, against open's limits, before writing it. */
export function assertWithinOpenLimits(diff: WorkspaceDiff, limits: Limits): void {
  let entries = diff.additions.length;
  let bytes = 0;
  for (const entry of diff.entries) {
    const state = diff.states.get(entry.index);
    if (state === 'deleted') continue;
    entries++;
    if (entry.type === 'dir') continue;
    const now = state === 'renamed' ? diff.renames.get(entry.index)! : entry.path;
    bytes += state === 'modified' || state === 'renamed' ? (diff.observed.get(now)?.size ?? 0) : entry.size;
  }
  for (const { observed } of diff.additions) if (observed.kind !== 'dir') bytes += observed.size;
  if (entries > limits.maxEntries) {
    throw new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Sync stopped before writing: the zip would hold ${entries} entries, over the limit of ` +
        `${limits.maxEntries} that zipfs open enforces, so it could not be opened again. Remove files, or raise ` +
        `ZIPFS_MAX_ENTRIES (for this sync and later opens). ${LEFT}`,
    );
  }
  if (bytes > limits.maxExtractedBytes) {
    throw new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Sync stopped before writing: the zip would expand to ${bytes} bytes, over the limit of ` +
        `${limits.maxExtractedBytes} that zipfs open enforces, so it could not be opened again. Remove files, or ` +
        `raise ZIPFS_MAX_EXTRACTED_BYTES (for this sync and later opens). ${LEFT}`,
    );
  }
}
