/**
 * Changes made through zipfs itself (write, delete). Every path is confined
 * to the workspace after resolving symlinks, and writes are atomic: a reader
 * sees the old file or the new one, never half of it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError, quote } from '../errors.ts';
import { writeFully } from '../fd-io.ts';
import { isInside, normaliseToolPath } from './safe-path.ts';
import { param } from '../message-marks.ts';

function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file);
  } catch {
    return undefined;
  }
}

/** Fails unless the deepest existing folder on the way to `absolute` is, for real, inside the workspace. */
export function assertParentInside(root: string, absolute: string, relative: string): void {
  let existing = path.dirname(absolute);
  while (!fs.existsSync(existing)) existing = path.dirname(existing);
  if (!isInside(fs.realpathSync(root), fs.realpathSync(existing))) {
    throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(relative)} leads outside the workspace through a symbolic link; zipfs does not write or delete outside a workspace.`);
  }
}

/**
 * Writes a file in the workspace: whole (a temporary renamed into place, so
 * readers see the old file or the new one), or, with `append`, the bytes added
 * at its end (a large file sent in pieces; a file that is not there yet is
 * created). Returns the file's size afterwards.
 */
export function writeWorkspaceFile(root: string, input: string, bytes: Uint8Array, createDirs: boolean, append = false): { relative: string; size: number } {
  const relative = normaliseToolPath(input);
  if (relative === '') throw new ZipfsError('INVALID_INPUT', 'Invalid argument path: it names the workspace root; give a file path such as "notes/todo.txt".');
  let absolute = path.join(root, relative);
  assertParentInside(root, absolute, relative);

  const existing = lstatOrUndefined(absolute);
  if (existing?.isSymbolicLink()) {
    // Write to what the link points at, but only inside the workspace.
    let real: string;
    try {
      real = fs.realpathSync(absolute);
    } catch {
      throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(relative)} is a symbolic link whose target does not exist; zipfs will not create files through links.`);
    }
    if (!isInside(fs.realpathSync(root), real)) throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(relative)} is a symbolic link pointing outside the workspace; zipfs does not write through it.`);
    absolute = real;
  }
  const target = existing?.isSymbolicLink() ? lstatOrUndefined(absolute) : existing;
  if (target?.isDirectory()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: ${quote(relative)} is a folder; give a file path inside it.`);

  const dir = path.dirname(absolute);
  if (!fs.existsSync(dir)) {
    if (!createDirs) throw new ZipfsError('PATH_NOT_FOUND', `The folder for ${quote(relative)} does not exist; create it, or write with ${param('create_dirs')} (the default).`);
    fs.mkdirSync(dir, { recursive: true });
  } else if (!fs.statSync(dir).isDirectory()) {
    throw new ZipfsError('INVALID_INPUT', `Invalid argument path: a parent of ${quote(relative)} is a file, not a folder.`);
  }

  if (append && target) {
    if (!target.isFile()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: ${quote(relative)} is not a regular file; zipfs appends to regular files only.`);
    // O_NOFOLLOW: the path was resolved above; a link swapped in since must not redirect the write.
    const fd = fs.openSync(absolute, fs.constants.O_WRONLY | fs.constants.O_APPEND | (fs.constants.O_NOFOLLOW ?? 0));
    try {
      writeFully(fd, bytes);
      return { relative, size: fs.fstatSync(fd).size };
    } finally {
      fs.closeSync(fd);
    }
  }
  const temporary = path.join(dir, `.${path.basename(absolute)}.zipfs-${globalThis.crypto.randomUUID()}.tmp`);
  try {
    fs.writeFileSync(temporary, bytes, { mode: target ? target.mode & 0o7777 : 0o644, flag: 'wx' });
    if (target) fs.chmodSync(temporary, target.mode & 0o7777);
    fs.renameSync(temporary, absolute);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    if (isSystemError(error, 'ENAMETOOLONG', 'EINVAL')) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: ${quote(relative)} cannot be created here (${(error as Error).message}).`);
    throw error;
  }
  return { relative, size: bytes.length };
}

export function deleteWorkspacePath(root: string, input: string, recursive: boolean): string {
  const relative = normaliseToolPath(input);
  if (relative === '') throw new ZipfsError('INVALID_INPUT', 'Invalid argument path: it names the workspace root; to drop the whole workspace, close the session.');
  const absolute = path.join(root, relative);
  assertParentInside(root, absolute, relative);
  const stats = lstatOrUndefined(absolute);
  if (!stats) throw new ZipfsError('PATH_NOT_FOUND', `Path ${quote(relative)} does not exist in the workspace; list what is there with ls or tree.`);
  if (stats.isDirectory()) {
    if (!recursive && fs.readdirSync(absolute).length > 0) {
      throw new ZipfsError('INVALID_INPUT', `${quote(relative)} is a folder that is not empty; pass ${param('recursive')} to delete it and everything in it.`);
    }
    // rm never follows links inside the folder: it removes the links themselves.
    fs.rmSync(absolute, { recursive: true });
  } else {
    fs.unlinkSync(absolute); // a link is removed, never its target
  }
  return relative;
}
