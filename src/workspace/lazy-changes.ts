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

/** Extracts what a change at each of `inputs` needs on disk (a file, or everything in a folder). */
export async function extractForChange(
  session: Session,
  inputs: string[],
  home: string,
  limits: Limits,
): Promise<void> {
  const lazy = lazyEntries(session);
  if (!lazy) return;
  const view = lazyView(session); // once: a call may name a thousand paths
  const wanted = inputs.flatMap((input) => view.indexesAt(normaliseToolPath(input)));
  if (wanted.length > 0) await extractEntries({ session, lazy, indexes: wanted, home, limits });
}

/**
 * Records the deletion of the entries only in the zip at each of `inputs` (and
 * below, with `recursive`), in one change of the manifest; returns how many. A
 * folder with entries below it is not empty, whether they are on disk or not:
 * without `recursive` it is refused before anything is recorded.
 */
export function deleteFromZipOnly(session: Session, inputs: string | readonly string[], recursive: boolean): number {
  const lazy = lazyEntries(session);
  if (!lazy) return 0;
  const view = lazyView(session);
  const doomed = new Set<number>();
  for (const input of typeof inputs === 'string' ? [inputs] : inputs) {
    const relative = normaliseToolPath(input);
    const below = view.indexesAt(relative);
    if (below.some((index) => lazy.paths[index] !== relative) && !recursive)
      throw new ZipfsError(
        'INVALID_INPUT',
        `${quote(relative)} is a folder that is not empty; pass ${param('recursive')} to delete it and everything ` +
          `in it.`,
      );
    for (const index of below) doomed.add(index);
  }
  if (doomed.size === 0) return 0;
  listMore(
    session,
    readManifest(session.manifest),
    [...doomed].map((index) => lazy.record(index)),
  );
  return doomed.size;
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
