/**
 * `mkdir` in a workspace: a folder reached like every path (beneath.ts), its
 * missing parents made when asked. An empty folder is how an agent adds a
 * folder entry (a jar's `META-INF/extra/`, a resource folder) before files.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { withBeneath } from './beneath.ts';
import { normaliseToolPath } from './safe-path.ts';

/** Makes the folder; returns its normalised path and whether it was made (false: it was there). */
export function makeWorkspaceFolder(
  root: string,
  input: string,
  parents: boolean,
): { relative: string; created: boolean } {
  const relative = normaliseToolPath(input);
  if (relative === '') return { relative, created: false }; // the workspace itself
  return withBeneath(root, (beneath) => {
    let place;
    try {
      place = beneath.place(relative, { create: parents });
    } catch (error) {
      if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') {
        throw new ZipfsError(
          'PATH_NOT_FOUND',
          `The folder that would hold ${quote(relative)} does not exist; make it first, or pass ${param('parents')}.`,
        );
      }
      throw error;
    }
    try {
      fs.mkdirSync(place.path);
      return { relative, created: true };
    } catch (error) {
      if (!isSystemError(error, 'EEXIST')) throw error;
      const there = fs.lstatSync(place.path);
      if (there.isDirectory()) return { relative, created: false };
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument path: ${quote(relative)} is already there ` +
          `as a ${there.isSymbolicLink() ? 'symbolic link' : 'file'}, not a folder.`,
      );
    }
  });
}
