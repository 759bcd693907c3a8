import fs from 'node:fs';
import { namesIn, type Folder } from './beneath.ts';

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
function compare(a: { name: string; stats: fs.Stats }, b: { name: string; stats: fs.Stats }): number {
  const aDir = a.stats.isDirectory() ? 0 : 1;
  const bDir = b.stats.isDirectory() ? 0 : 1;
  if (aDir !== bDir) return aDir - bDir;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Walks a folder depth-first in display order. Each folder is opened through
 * its parent's descriptor without following links (beneath.ts), so a walk
 * cannot leave the workspace even if a folder is swapped for a link while it
 * runs; links are reported as such. What vanishes between listing and stat is
 * left out.
 */
export function walk(start: Folder, options: WalkOptions, visit: (item: ListedItem, depth: number, isLast: boolean) => void): void {
  const recurse = (folder: Folder, relative: string, depth: number) => {
    const children: { name: string; stats: fs.Stats }[] = [];
    for (const name of namesIn(folder)) {
      const stats = fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
      if (stats) children.push({ name, stats });
    }
    children.sort(compare);
    children.forEach(({ name, stats }, i) => {
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      const fromRoot = options.base === '' ? childRelative : `${options.base}/${childRelative}`;
      const type = stats.isDirectory() ? 'dir' : stats.isSymbolicLink() || options.archiveSymlinks.has(fromRoot) ? 'symlink' : 'file';
      visit({ path: childRelative, type, size: type === 'dir' ? 0 : stats.size, mtime: stats.mtime }, depth, i === children.length - 1);
      if (type !== 'dir' || depth >= options.maxDepth) return;
      const inner = folder.openChild(name);
      if (!inner) return; // swapped for a link or a file since the lstat: not followed
      try {
        recurse(inner, childRelative, depth + 1);
      } finally {
        inner.close();
      }
    });
  };
  recurse(start, '', 1);
}
