/**
 * Before a sync writes: is the source zip still this session's base? Changed
 * by another writer, it is a conflict (named, with what force would discard),
 * unless the sync merges or is forced.
 */
import { ZipfsError } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { isNewArchive, sourceState } from '../session/source-state.ts';
import type { Base } from '../workspace/base.ts';
import { describeZipChanges, zipChangesSince } from './zip-changes.ts';

export interface SourceCheck {
  force: boolean;
  merge: boolean;
}

/** Refuses to write over a source that changed since it was opened or last synced, or that vanished, unless forced. */
export function checkSource(base: Base, { force, merge }: SourceCheck): { exists: boolean; modified: boolean } {
  const record = base.record;
  const state = sourceState(record);
  // the merge decides, entry by entry
  if (state === 'changed' && merge && !isNewArchive(record)) return { exists: true, modified: true };
  const fresh = isNewArchive(record);
  if (state === 'missing') {
    if (fresh || force) return { exists: false, modified: true };
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The source zip ${record.source_path} no longer exists (moved or deleted). Put it back, or pass ` +
        `${param('force')} to write the workspace there as a new archive.`,
    );
  }
  if (state === 'changed' && !force) {
    if (fresh) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `A file appeared at ${record.source_path}, where this session's new archive is to go, since it was ` +
          `opened. Pass ${param('force')} to replace it with the workspace, or close the session and open that zip ` +
          `instead.`,
      );
    }
    // Say what the other writer did, and what force would throw away of it.
    // Against the whole base: an entry never extracted is not taken for one the other writer added.
    const changes = zipChangesSince(base.whole(), record.source_path, record.name_encoding);
    const what = changes
      ? `changed since this session's base (another session or program wrote it): ${describeZipChanges(changes)}`
      : "was replaced since this session's base by something that cannot be read as a zip";
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${record.source_path} ${what}. Nothing was written. Pass ${param('merge')} to keep those changes ` +
        `beside this workspace's (an entry both sides changed is named as a conflict); or pass ${param('force')} ` +
        `to replace it with the workspace, which discards those changes (entries it gained are dropped, the ones ` +
        `it changed go back to this workspace's version).`,
    );
  }
  // Forced over a file that appeared where a new archive goes: replaced whole, nothing of it copied.
  if (fresh) return { exists: false, modified: true };
  return { exists: true, modified: state === 'changed' };
}
