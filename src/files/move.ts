/**
 * Renaming inside a workspace. Both ends are reached without links (beneath.ts);
 * the source is moved as it is (a link is moved as a link, never followed),
 * missing folders on the way to the destination are made, and nothing is
 * overwritten unless asked, never a folder by a file or the reverse.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { removeBeneath, withBeneath } from './beneath.ts';
import { normaliseToolPath } from './safe-path.ts';
import { foldCase } from '../rules/platform-names.ts';

export function moveWorkspacePath(
  root: string,
  fromInput: string,
  toInput: string,
  overwrite: boolean,
): { from: string; to: string } {
  const from = normaliseToolPath(fromInput);
  const to = normaliseToolPath(toInput);
  if (from === '' || to === '')
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid input for move: the workspace root itself cannot be moved or replaced; name paths inside it.',
    );
  return withBeneath(root, (beneath) => {
    const source = beneath.place(from);
    const moving = fs.lstatSync(source.path, { throwIfNoEntry: false });
    if (!moving)
      throw new ZipfsError(
        'PATH_NOT_FOUND',
        `Path ${quote(from)} does not exist in the workspace; list what is there with ls or tree.`,
      );
    if (to === from) return { from, to };
    if (moving.isDirectory() && (to + '/').startsWith(`${from}/`))
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid input for move: ${quote(to)} is inside ${quote(from)}; a folder cannot move into itself.`,
      );
    const target = beneath.place(to, { create: true });
    const found = fs.lstatSync(target.path, { throwIfNoEntry: false });
    // On a folder that folds case (macOS, Windows), `Docs` finds `docs` itself: a case-only rename, never a
    // replacement (which would delete the source first). Same file and a name differing only in case tells it
    // from a hard link under another name.
    const existing =
      found && !(found.ino === moving.ino && found.dev === moving.dev && foldCase(from) === foldCase(to))
        ? found
        : undefined;
    if (existing) {
      if (!overwrite)
        throw new ZipfsError(
          'INVALID_INPUT',
          `${quote(to)} already exists; pass ${param('overwrite')} to replace it, or choose another name.`,
        );
      if (existing.isDirectory() !== moving.isDirectory()) {
        throw new ZipfsError(
          'INVALID_INPUT',
          `${quote(to)} is a ${existing.isDirectory() ? 'folder' : 'file'} and ${quote(from)} a ` +
            `${moving.isDirectory() ? 'folder' : 'file'}; move will not replace one with the other.`,
        );
      }
      if (existing.isDirectory()) removeBeneath(target.folder, target.name);
    }
    // Both names are looked up in folders held open: a link swapped in on either side is renamed as a link, never
    // followed.
    fs.renameSync(source.path, target.path);
    return { from, to };
  });
}
