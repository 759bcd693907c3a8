/**
 * Changes made through zipfs itself (write, delete). Every path is reached
 * inside the workspace without following a link (beneath.ts), and writes are
 * atomic: a reader sees the old file or the new one, never half of it.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { writeFully } from '../base/fd-io.ts';
import { linkRefused, normaliseToolPath } from './safe-path.ts';
import { removeBeneath, withBeneath, type Folder } from './beneath.ts';
import { foldCase } from '../rules/platform-names.ts';
import { isFileInUse } from '../rules/file-in-use.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import { param } from '../base/message-marks.ts';

export interface WriteOptions {
  /** Add the bytes at the file's end instead of replacing it. */
  append?: boolean;
  /** The rules of the session's folder (rules/folder-rules.ts, sessionFolderRules): whether it folds case. */
  rules?: FolderRules;
}

/**
 * Writes a file in the workspace: whole (a temporary renamed into place, so
 * readers see the old file or the new one), or, with `append`, the bytes added
 * at its end (a large file sent in pieces; a file that is not there yet is
 * created). Returns the file's size afterwards. The folder is reached without
 * links and held open (beneath.ts), so the temporary, the rename and the
 * append all land in it even if a link is swapped in meanwhile.
 */
export function writeWorkspaceFile(
  root: string,
  input: string,
  bytes: Uint8Array,
  createDirs: boolean,
  { append = false, rules }: WriteOptions = {},
): { relative: string; size: number } {
  const foldsCase = rules?.caseInsensitive === true;
  const relative = normaliseToolPath(input);
  if (relative === '')
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid argument path: it names the workspace root; give a file path such as "notes/todo.txt".',
    );
  return withBeneath(root, (beneath) => {
    let place;
    try {
      place = beneath.place(relative, { create: createDirs });
    } catch (error) {
      if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') {
        throw new ZipfsError(
          'PATH_NOT_FOUND',
          `The folder for ${quote(relative)} does not exist; create it, or write with ${param('create_dirs')} (the default).`,
        );
      }
      throw error;
    }
    const target = fs.lstatSync(place.path, { throwIfNoEntry: false });
    if (target?.isSymbolicLink()) throw linkRefused(relative, place.path);
    if (target?.isDirectory())
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument path: ${quote(relative)} is a folder; give a file path inside it.`,
      );

    if (append && target) {
      if (!target.isFile())
        throw new ZipfsError(
          'INVALID_INPUT',
          `Invalid argument path: ${quote(relative)} is not a regular file; zipfs appends to regular files only.`,
        );
      // O_NOFOLLOW: a link swapped in since the lstat must not redirect the write.
      const fd = fs.openSync(
        place.path,
        fs.constants.O_WRONLY | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0),
      );
      try {
        if (!fs.fstatSync(fd).isFile())
          throw new ZipfsError(
            'INVALID_INPUT',
            `Invalid argument path: ${quote(relative)} is not a regular file; zipfs appends to regular files only.`,
          );
        writeFully(fd, bytes);
        return { relative, size: fs.fstatSync(fd).size };
      } finally {
        fs.closeSync(fd);
      }
    }
    const temporary = place.folder.child(`.${place.name}.zipfs-${globalThis.crypto.randomUUID()}.tmp`);
    try {
      // 'wx' (O_EXCL) never follows a link at the temporary's name.
      fs.writeFileSync(temporary, bytes, { mode: target ? target.mode & 0o7777 : 0o644, flag: 'wx' });
      if (target) fs.chmodSync(temporary, target.mode & 0o7777);
      // On a folder that folds case, `readme.TXT` may be `README.txt`: the rename goes to the stored name, which
      // NTFS would otherwise replace with the spelling given, so the entry keeps its own name.
      fs.renameSync(
        temporary,
        target && foldsCase ? place.folder.child(storedName(place.folder, place.name, target)) : place.path,
      );
    } catch (error) {
      fs.rmSync(temporary, { force: true });
      // Windows refuses to replace a file another program holds open (rules/file-in-use.ts).
      if (target && isFileInUse(error)) {
        throw new ZipfsError(
          'FILE_IN_USE',
          `${quote(relative)} is in use by another program, which holds it open; nothing was written. Close it there, then retry.`,
        );
      }
      if (isSystemError(error, 'ENAMETOOLONG', 'EINVAL'))
        throw new ZipfsError(
          'INVALID_INPUT',
          `Invalid argument path: ${quote(relative)} cannot be created here (${(error as Error).message}).`,
        );
      throw error;
    }
    return { relative, size: bytes.length };
  });
}

/** The name `name` is stored under in `folder`, where lookups fold case: the entry with the same identity. */
function storedName(folder: Folder, name: string, target: fs.Stats): string {
  const names = fs.readdirSync(folder.path);
  if (names.includes(name)) return name;
  return (
    names.find(
      (stored) =>
        foldCase(stored) === foldCase(name) &&
        fs.lstatSync(folder.child(stored), { throwIfNoEntry: false })?.ino === target.ino,
    ) ?? name
  );
}

export function deleteWorkspacePath(root: string, input: string, recursive: boolean): string {
  const relative = normaliseToolPath(input);
  if (relative === '')
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid argument path: it names the workspace root; to drop the whole workspace, close the session.',
    );
  return withBeneath(root, (beneath) => {
    const place = beneath.place(relative);
    const stats = fs.lstatSync(place.path, { throwIfNoEntry: false });
    if (!stats)
      throw new ZipfsError(
        'PATH_NOT_FOUND',
        `Path ${quote(relative)} does not exist in the workspace; list what is there with ls or tree.`,
      );
    if (stats.isDirectory() && !recursive && fs.readdirSync(place.path).length > 0) {
      throw new ZipfsError(
        'INVALID_INPUT',
        `${quote(relative)} is a folder that is not empty; pass ${param('recursive')} to delete it and everything in it.`,
      );
    }
    try {
      removeBeneath(place.folder, place.name); // a link is removed, never its target
    } catch (error) {
      // Windows refuses to remove a file another program holds open (rules/file-in-use.ts).
      if (isFileInUse(error)) {
        throw new ZipfsError(
          'FILE_IN_USE',
          `${quote(relative)} is in use by another program, which holds it open; it was not deleted. Close it there, then retry.`,
        );
      }
      throw error;
    }
    return relative;
  });
}
