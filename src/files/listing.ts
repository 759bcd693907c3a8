import fs from 'node:fs';
import path from 'node:path';

/** One thing in a workspace as ls and tree show it. */
export interface ListedItem {
  /** Path relative to the listed folder, `/`-separated. */
  path: string;
  type: 'file' | 'dir' | 'symlink';
  size: number;
  mtime: Date;
}

export interface WalkOptions {
  /** How many levels below the start to descend; 1 lists only the folder itself. */
  maxDepth: number;
  /** Workspace paths (relative to the workspace root) that are symlinks in the archive. */
  archiveSymlinks: ReadonlySet<string>;
  /** The listed folder's path relative to the workspace root ('' for the root). */
  base: string;
}

/** Folders first, then by name (code-point order, the same on every machine). */
function compare(a: fs.Dirent, b: fs.Dirent): number {
  const aDir = a.isDirectory() ? 0 : 1;
  const bDir = b.isDirectory() ? 0 : 1;
  if (aDir !== bDir) return aDir - bDir;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Walks a folder depth-first in display order. Symbolic links on disk are
 * reported as such and never followed, so a walk cannot leave the workspace.
 */
export function walk(dir: string, options: WalkOptions, visit: (item: ListedItem, depth: number, isLast: boolean) => void): void {
  const recurse = (absolute: string, relative: string, depth: number) => {
    const children = fs.readdirSync(absolute, { withFileTypes: true }).sort(compare);
    children.forEach((child, i) => {
      const childRelative = relative === '' ? child.name : `${relative}/${child.name}`;
      const childAbsolute = path.join(absolute, child.name);
      const stats = fs.lstatSync(childAbsolute);
      const fromRoot = options.base === '' ? childRelative : `${options.base}/${childRelative}`;
      const type = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() || options.archiveSymlinks.has(fromRoot) ? 'symlink' : 'file';
      visit({ path: childRelative, type, size: type === 'dir' ? 0 : stats.size, mtime: stats.mtime }, depth, i === children.length - 1);
      if (type === 'dir' && depth < options.maxDepth) recurse(childAbsolute, childRelative, depth + 1);
    });
  };
  recurse(dir, '', 1);
}
