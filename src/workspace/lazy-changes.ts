/**
 * Changes to entries a lazy session has not extracted. A tool that changes a
 * file's content (edit, move, append) needs it on disk: it is extracted first,
 * with extract's checks. A deletion needs nothing from the zip: the entries go
 * into the manifest as entries whose file is absent, which status and sync
 * read as deleted, as they read a file removed from an eager workspace.
 * Callers hold the session's lock.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import { param } from '../base/message-marks.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { makeWorkspaceFolder } from '../files/make-folder.ts';
import { extractEntries } from './extract-entries.ts';
import { lazyEntries } from '../session/lazy-session.ts';
import { lazyView } from './lazy-view.ts';
import { listMore } from '../session/manifest.ts';
import type { Session } from '../session/session-store.ts';
import { readManifest } from '../session/read-manifest.ts';

/** The entries only in the zip at `relative` and below it. */
function onlyInZip(session: Session, relative: string): number[] {
  return lazyView(session).indexesAt(relative);
}

/** Extracts what a change at each of `inputs` needs on disk (a file, or everything in a folder). */
export async function extractForChange(
  session: Session,
  inputs: string[],
  home: string,
  limits: Limits,
): Promise<void> {
  const lazy = lazyEntries(session);
  if (!lazy) return;
  const wanted = inputs.flatMap((input) => onlyInZip(session, normaliseToolPath(input)));
  if (wanted.length > 0) await extractEntries({ session, lazy, indexes: wanted, home, limits });
}

/**
 * Records the deletion of the entries only in the zip at `input` (and below,
 * with `recursive`); returns how many. A folder with entries below it is not
 * empty, whether they are on disk or not.
 */
export function deleteFromZipOnly(session: Session, input: string, recursive: boolean): number {
  const lazy = lazyEntries(session);
  if (!lazy) return 0;
  const relative = normaliseToolPath(input);
  const doomed = onlyInZip(session, relative);
  if (doomed.length === 0) return 0;
  const folder = doomed.some((index) => lazy.paths[index] !== relative);
  if (folder && !recursive)
    throw new ZipfsError(
      'INVALID_INPUT',
      `${quote(relative)} is a folder that is not empty; pass ${param('recursive')} to delete it and everything in it.`,
    );
  listMore(
    session,
    readManifest(session.manifest),
    doomed.map((index) => lazy.record(index)),
  );
  return doomed.length;
}

/** Makes on disk the folder `input` sits in when that folder exists only in the zip (its entries are not extracted). */
export function makeZipOnlyFolders(session: Session, input: string): void {
  const relative = normaliseToolPath(input);
  const cut = relative.lastIndexOf('/');
  if (cut < 0) return;
  const parent = relative.slice(0, cut);
  const lazy = lazyEntries(session);
  if (lazy?.hasFolder(parent)) makeWorkspaceFolder(session.contents, parent, true);
}
