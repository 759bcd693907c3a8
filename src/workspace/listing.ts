import fs from 'node:fs';
import { namesIn, type Folder } from '../files/beneath.ts';
import type { ArchivedItem } from './workspace.ts';

/** One thing in a workspace as ls and tree show it. */
export interface ListedItem {
  /** Path relative to the listed folder, `/`-separated. */
  path: string;
  type: 'file' | 'dir' | 'symlink';
  size: number;
  mtime: Date;
  /** An encrypted entry only in the archive, which zipfs has no key for. */
  encrypted?: ArchivedItem['encrypted'];
}

export interface WalkOptions {
  /** How many levels below the start to descend; 1 lists only the folder itself. */
  maxDepth: number;
  /** Workspace paths (relative to the workspace root) that are symlinks in the archive. */
  archiveSymlinks: ReadonlySet<string>;
  /** The listed folder's path relative to the workspace root ('' for the root). */
  base: string;
  /** The items of a folder that are only in the archive (Workspace.archivedChildren). */
  archived: (relative: string) => Map<string, ArchivedItem>;
}

/** Folders first, then by name (code-point order, the same on every machine). */
function compare(a: { name: string; dir: boolean }, b: { name: string; dir: boolean }): number {
  if (a.dir !== b.dir) return a.dir ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/**
 * Walks a folder depth-first in display order. Each folder is opened through
 * its parent's descriptor without following links (beneath.ts), so a walk
 * cannot leave the workspace even if a folder is swapped for a link while it
 * runs; links are reported as such. What vanishes between listing and stat is
 * left out. `archived` adds what is only in the archive; `start` is
 * undefined when the folder itself is only there.
 */
export function walk(
  start: Folder | undefined,
  options: WalkOptions,
  visit: (item: ListedItem, depth: number, isLast: boolean) => void,
): void {
  const recurse = (folder: Folder | undefined, relative: string, depth: number) => {
    const fromRootOf = (childRelative: string) =>
      options.base === '' || childRelative === '' ? options.base + childRelative : `${options.base}/${childRelative}`;
    const children: { name: string; dir: boolean; stats?: fs.Stats; virtual?: ArchivedItem }[] = [];
    for (const name of folder ? namesIn(folder) : []) {
      const stats = fs.lstatSync(folder!.child(name), { throwIfNoEntry: false });
      if (stats) children.push({ name, dir: stats.isDirectory(), stats });
    }
    const archived = options.archived(fromRootOf(relative));
    if (archived.size > 0) {
      const onDisk = new Set(children.map((child) => child.name));
      for (const [name, item] of archived)
        if (!onDisk.has(name)) children.push({ name, dir: item.type === 'dir', virtual: item });
    }
    children.sort(compare);
    children.forEach(({ name, stats, virtual }, i) => {
      const childRelative = relative === '' ? name : `${relative}/${name}`;
      const type = virtual
        ? virtual.type
        : stats!.isDirectory()
          ? 'dir'
          : stats!.isSymbolicLink() || options.archiveSymlinks.has(fromRootOf(childRelative))
            ? 'symlink'
            : 'file';
      const size = type === 'dir' ? 0 : virtual ? virtual.size : stats!.size;
      visit(
        {
          path: childRelative,
          type,
          size,
          mtime: virtual ? virtual.mtime : stats!.mtime,
          ...(virtual?.encrypted && { encrypted: virtual.encrypted }),
        },
        depth,
        i === children.length - 1,
      );
      if (type !== 'dir' || depth >= options.maxDepth) return;
      if (virtual) return recurse(undefined, childRelative, depth + 1);
      const inner = folder!.openChild(name);
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
