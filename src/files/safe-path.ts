import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, quote } from '../errors.ts';

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
      if (segments.length === 0) throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(input)} climbs out of the workspace; paths are relative to the workspace root.`);
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  return segments.join('/');
}

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** A path inside a workspace, resolved and confined. */
export interface WorkspacePath {
  /** Normalised relative path ('' for the root). */
  relative: string;
  absolute: string;
  stats: fs.Stats;
}

/**
 * Resolves a tool path to an existing file or folder in the workspace. The
 * real path (all symlinks resolved) must stay inside the workspace: a link
 * that points outside gives PATH_TRAVERSAL, never the outside file.
 */
export function resolveExisting(root: string, input: string): WorkspacePath {
  const relative = normaliseToolPath(input);
  const absolute = relative === '' ? root : path.join(root, relative);
  const realRoot = fs.realpathSync(root);
  let real: string;
  try {
    real = fs.realpathSync(absolute);
  } catch {
    let stats: fs.Stats | undefined;
    try {
      stats = fs.lstatSync(absolute);
    } catch {
      // Not there at all: fall through to PATH_NOT_FOUND.
    }
    if (stats?.isSymbolicLink()) throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(relative)} is a symbolic link whose target cannot be resolved inside the workspace.`);
    throw new ZipfsError('PATH_NOT_FOUND', `Path ${quote(relative)} does not exist in the workspace; list what is there with ls or tree.`);
  }
  if (!isInside(realRoot, real)) {
    throw new ZipfsError('PATH_TRAVERSAL', `Path ${quote(relative)} resolves outside the workspace through a symbolic link; zipfs does not follow links out of a workspace.`);
  }
  return { relative, absolute: real, stats: fs.statSync(real) };
}
