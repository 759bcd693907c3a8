/**
 * Renaming inside a workspace. Both ends are confined like every tool path;
 * the source is moved as it is (a link is moved as a link, never followed),
 * missing folders on the way to the destination are made, and nothing is
 * overwritten unless asked, never a folder by a file or the reverse.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, quote } from '../errors.ts';
import { param } from '../message-marks.ts';
import { assertParentInside } from './edit.ts';
import { normaliseToolPath } from './safe-path.ts';

export function moveWorkspacePath(root: string, fromInput: string, toInput: string, overwrite: boolean): { from: string; to: string } {
  const from = normaliseToolPath(fromInput);
  const to = normaliseToolPath(toInput);
  if (from === '' || to === '') throw new ZipfsError('INVALID_INPUT', 'Invalid input for move: the workspace root itself cannot be moved or replaced; name paths inside it.');
  const source = path.join(root, from);
  const target = path.join(root, to);
  assertParentInside(root, source, from);
  assertParentInside(root, target, to);
  const moving = fs.lstatSync(source, { throwIfNoEntry: false });
  if (!moving) throw new ZipfsError('PATH_NOT_FOUND', `Path ${quote(from)} does not exist in the workspace; list what is there with ls or tree.`);
  if (to === from) return { from, to };
  if (moving.isDirectory() && (to + '/').startsWith(`${from}/`)) throw new ZipfsError('INVALID_INPUT', `Invalid input for move: ${quote(to)} is inside ${quote(from)}; a folder cannot move into itself.`);
  const existing = fs.lstatSync(target, { throwIfNoEntry: false });
  if (existing) {
    if (!overwrite) throw new ZipfsError('INVALID_INPUT', `${quote(to)} already exists; pass ${param('overwrite')} to replace it, or choose another name.`);
    if (existing.isDirectory() !== moving.isDirectory()) {
      throw new ZipfsError('INVALID_INPUT', `${quote(to)} is a ${existing.isDirectory() ? 'folder' : 'file'} and ${quote(from)} a ${moving.isDirectory() ? 'folder' : 'file'}; move will not replace one with the other.`);
    }
    if (existing.isDirectory()) fs.rmSync(target, { recursive: true });
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.renameSync(source, target);
  return { from, to };
}
