import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import type { Beneath } from './beneath.ts';

/**
 * Normalises a path given to a tool: relative to the workspace root (a leading
 * `/` means the root), `\` read as `/`, `.` and empty segments dropped. `..`
 * that would climb above the root is PATH_TRAVERSAL. Returns '' for the root.
 */
export function normaliseToolPath(input: string): string {
  if (input.includes('\0')) throw new ZipfsError('INVALID_INPUT', 'Invalid argument path: it contains a NUL byte.');
  const segments: string[] = [];
  for (const segment of input.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0)
        throw new ZipfsError(
          'PATH_TRAVERSAL',
          `Path ${quote(input)} climbs out of the workspace; paths are relative to the workspace root.`,
        );
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return segments.join('/');
}

/** A path inside a workspace, resolved and confined. */
export interface WorkspacePath {
  /** Normalised relative path ('' for the root). */
  relative: string;
  /** A path for system calls on it, reached without links (see beneath.ts); never follow it. */
  path: string;
  stats: fs.Stats;
}

/**
 * Resolves a tool path to an existing file or folder in the workspace,
 * without following a link at any component: a link (which could point
 * outside, or be swapped to) gives PATH_TRAVERSAL naming what it points to.
 */
export function resolveExisting(beneath: Beneath, input: string): WorkspacePath {
  const relative = normaliseToolPath(input);
  if (relative === '') return { relative, path: beneath.folder('').path, stats: beneath.lstat('')! };
  const place = beneath.place(relative);
  const stats = fs.lstatSync(place.path, { throwIfNoEntry: false });
  if (!stats)
    throw new ZipfsError(
      'PATH_NOT_FOUND',
      `Path ${quote(relative)} does not exist in the workspace; list what is there with ls or tree.`,
    );
  if (stats.isSymbolicLink()) throw linkRefused(relative, place.path);
  return { relative, path: place.path, stats };
}

/** A link where a file or folder was asked for: named with what it points to, so the caller can use that path. */
export function linkRefused(relative: string, at: string): ZipfsError {
  let target = '';
  try {
    target = ` (to ${quote(fs.readlinkSync(at))})`;
  } catch {
    // Gone meanwhile: the message stands without it.
  }
  return new ZipfsError(
    'PATH_TRAVERSAL',
    `Path ${quote(relative)} is a symbolic link${target}; zipfs does not follow links inside a workspace (they can ` +
      `lead outside it). Use the path the link points to.`,
  );
}
