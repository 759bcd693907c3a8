/**
 * The files a grep searches, in the one order it searches them (and a cursor
 * resumes in): the workspace's files walked folder by folder, each folder's
 * names sorted, merged with a lazy session's entries not extracted.
 */
import fs from 'node:fs';
import { withBeneath, type Folder } from '../files/beneath.ts';
import type { GrepItem, GrepPlace, GrepZipEntry } from './grep-types.ts';

/**
 * Regular files under `start`, sorted; links and what they point at are never
 * searched. Folders are opened through their parents without following links
 * (beneath.ts), so a folder swapped for a link while grep lists is not entered.
 */
export function listFiles(root: string, start: string, accept: (relative: string) => boolean): string[] {
  const files: string[] = [];
  const visit = (folder: Folder) => {
    // The folder's own record of each child's type (no stat per file); the worker checks each file again as it opens
    // it.
    const children = fs
      .readdirSync(folder.path, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const { name } = child;
      const relative = folder.childRelative(name);
      const stats =
        child.isFile() || child.isDirectory() || child.isSymbolicLink()
          ? child
          : fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
      if (stats?.isFile()) {
        if (accept(relative)) files.push(relative);
      } else if (stats?.isDirectory()) {
        const inner = folder.openChild(name);
        if (!inner) continue; // swapped for a link since the lstat
        try {
          visit(inner);
        } finally {
          inner.close();
        }
      }
    }
  };
  withBeneath(root, (beneath) => {
    const stats = beneath.lstat(start);
    if (stats?.isFile()) {
      if (accept(start)) files.push(start);
    } else if (stats?.isDirectory()) {
      visit(beneath.folder(start));
    }
  });
  return files;
}

/**
 * The order listFiles walks in: folder by folder, each folder's names sorted
 * by code unit. It is plain string order once "/" sorts below every character
 * a name can hold, so a folder's contents come before a sibling "a.txt" of "a".
 */
function walkOrderKey(relative: string): string {
  return relative.replaceAll('/', '\0');
}

/** Whether `relative` is `start` or lies below it ('' is the root). */
function isWithin(start: string, relative: string): boolean {
  return start === '' || relative === start || relative.startsWith(`${start}/`);
}

/** The workspace files and the zip entries (filtered the same way) merged in walk order. */
export function mergeZipEntries(
  files: string[],
  entries: GrepZipEntry[],
  start: string,
  accept: (relative: string) => boolean,
): GrepItem[] {
  const onDisk = new Set(files);
  const extra = entries
    .filter(({ file }) => isWithin(start, file) && accept(file) && !onDisk.has(file))
    .map(({ file, zipPath, zipFd, entry }) => ({
      key: walkOrderKey(file),
      item: { file, zip: { zipPath, zipFd, entry } },
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const items: GrepItem[] = [];
  let next = 0;
  for (const file of files) {
    const key = walkOrderKey(file);
    while (next < extra.length && extra[next]!.key < key) items.push(extra[next++]!.item);
    items.push({ file });
  }
  while (next < extra.length) items.push(extra[next++]!.item);
  return items;
}

/**
 * The items from `place` on: files before it are left out, the file it is in resumes inside (from),
 * and a file it is past (line 0) is left out too. A file gone since is simply not there.
 */
export function itemsFrom(items: GrepItem[], place: GrepPlace | undefined): GrepItem[] {
  if (!place) return items;
  const key = walkOrderKey(place.file);
  const rest: GrepItem[] = [];
  for (const item of items) {
    const itemKey = walkOrderKey(item.file);
    if (itemKey < key || (itemKey === key && place.line === 0)) continue;
    rest.push(itemKey === key ? { ...item, from: { line: place.line, column: place.column } } : item);
  }
  return rest;
}
