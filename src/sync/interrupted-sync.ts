/**
 * A sync writes the next manifest (and the next central.bin, where the session
 * keeps one) before it renames the new archive into place; a sync killed
 * between the two leaves drafts, which the next command finishes or forgets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DIRECTORY_COPY } from '../session/manifest.ts';
import { dropNextBase, nextBasePath, placeNextBase } from '../session/base-archive.ts';
import { readManifestLines } from '../session/manifest-lines.ts';
import type { Session } from '../session/session-store.ts';
import { currentFingerprint, sameArchive } from '../session/source-state.ts';

export function nextManifestPath(session: Session): string {
  return `${session.manifest}.next`;
}

/** The session's copy of its base's directory, where it keeps one (manifest.ts, DIRECTORY_COPY). */
export function directoryCopyPath(session: Session): string {
  return path.join(session.dir, DIRECTORY_COPY);
}

/** The next copy of the directory, renamed into place just before the next manifest. */
export function nextCentralPath(session: Session): string {
  return `${directoryCopyPath(session)}.next`;
}

/**
 * Finishes or forgets a sync that was killed. The next manifest is written
 * before the archive is renamed into place: if the source now is the archive
 * it describes, the rename happened and the manifest is promoted; otherwise
 * the source is still the old archive and the draft is dropped.
 */
export function recoverInterruptedSync(session: Session): void {
  const next = nextManifestPath(session);
  if (!fs.existsSync(next)) {
    // Killed between the manifest's rename and the base's: the next base is the archive the manifest describes.
    if (fs.existsSync(nextBasePath(session.dir))) placeNextBase(session.dir);
    return;
  }
  try {
    const draft = readManifestLines(next).session;
    const current = currentFingerprint(draft.source_path);
    if (current && sameArchive(current, draft.source)) {
      if (fs.existsSync(nextCentralPath(session))) fs.renameSync(nextCentralPath(session), directoryCopyPath(session));
      fs.renameSync(next, session.manifest);
      placeNextBase(session.dir);
      return;
    }
  } catch {
    // An unreadable draft is a crash before it was complete: drop it.
  }
  fs.rmSync(next, { force: true });
  fs.rmSync(nextCentralPath(session), { force: true });
  dropNextBase(session.dir);
}
