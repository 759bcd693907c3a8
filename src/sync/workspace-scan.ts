/**
 * What is in a workspace folder, as the diff reads it (workspace-diff.ts): each
 * item's stat, read through descriptors beneath the root, never following a
 * link; names that are not UTF-8 noted; and, in a folder that folds case, the
 * entries matched to the spelling on disk.
 */
import fs from 'node:fs';
import { isSystemError } from '../base/errors.ts';
import { STAT_FIELDS, libc } from '../base/libc.ts';
import { specialKind } from '../base/regular-file.ts';
import type { Folder } from '../files/beneath.ts';
import { foldCase } from '../rules/platform-names.ts';
import { foldersOf } from '../rules/item-type.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from '../zip/constants.ts';
import { tryDecodeUtf8 } from '../zip/names.ts';
import type { Observed } from './observed.ts';

export function observe(stats: fs.Stats): Observed {
  const kind = kindOf(stats.mode);
  const item: Observed = {
    kind,
    size: stats.size,
    mtime_ms: stats.mtimeMs,
    ctime_ms: stats.ctimeMs,
    ino: stats.ino,
    nlink: stats.nlink,
  };
  if (kind === 'special') item.what = specialKind(stats.mode) ?? 'not a regular file';
  return item;
}

/** What statAt put in `fields` (libc.ts's STAT_FIELDS), as `observe` has it: one object per file, not two. */
function observeFields(fields: Float64Array): Observed {
  const mode = fields[STAT_FIELDS.mode]!;
  const kind = kindOf(mode);
  const item: Observed = {
    kind,
    size: fields[STAT_FIELDS.size]!,
    mtime_ms: fields[STAT_FIELDS.mtimeMs]!,
    ctime_ms: fields[STAT_FIELDS.ctimeMs]!,
    ino: fields[STAT_FIELDS.ino]!,
    nlink: fields[STAT_FIELDS.nlink]!,
  };
  if (kind === 'special') item.what = specialKind(mode) ?? 'not a regular file';
  return item;
}

function kindOf(mode: number): Observed['kind'] {
  const type = mode & S_IFMT;
  return type === S_IFREG ? 'file' : type === S_IFDIR ? 'dir' : type === S_IFLNK ? 'symlink' : 'special';
}

/** A name that is not UTF-8, shown with its odd bytes as \xNN escapes. */
function escapedName(bytes: Buffer): string {
  let out = '';
  for (const byte of bytes)
    out += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return out;
}

/**
 * A folder's names. readdir decodes names as UTF-8 and turns bytes that are
 * not into U+FFFD, so such a name could be neither stated nor stored: when
 * one shows up, the folder is read again as bytes to tell them apart.
 */
function readNames(dir: string): { names: string[]; badNames: string[] } {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return { names: [], badNames: [] }; // removed while the scan ran
    throw error;
  }
  if (!anyUndecoded(names)) return { names, badNames: [] };
  const good: string[] = [];
  const badNames: string[] = [];
  for (const raw of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const decoded = tryDecodeUtf8(raw);
    if (decoded === undefined) badNames.push(escapedName(raw));
    else good.push(decoded);
  }
  return { names: good, badNames };
}

/** Whether a name came out of readdir with U+FFFD. A plain loop: `some` with a callback cost a status of 12,500
 * names ~3 ms (the callback is not compiled yet when a command runs it once). */
function anyUndecoded(names: string[]): boolean {
  for (let i = 0; i < names.length; i++) if (names[i]!.includes('\uFFFD')) return true;
  return false;
}

/** What a scan found, in the order it found it: each item's path and stat (a folder before what it holds). */
export interface ScanList {
  paths: string[];
  seen: Observed[];
  emptyDirs: Set<string>;
  badNames: string[];
  /** The folders among the items, as they were found (a folder swapped for a link mid-scan may be an item not here). */
  folders: string[];
}

/** What a scan found: every item by path, the empty folders, names that are not UTF-8, and the folders it entered. */
export interface Scanned {
  items: Map<string, Observed>;
  emptyDirs: Set<string>;
  badNames: string[];
  /** The folders among `items`, as they were found (a folder swapped for a link mid-scan may be an item not here). */
  folders: string[];
}

/** Everything under the workspace root, by path (scanList's items, in a Map in the order found). */
export function scan(root: Folder): Scanned {
  return byPath(scanList(root));
}

/** A scan's list as a Map by path. */
export function byPath(list: ScanList): Scanned {
  const items = new Map<string, Observed>();
  const { paths, seen } = list;
  for (let i = 0; i < paths.length; i++) items.set(paths[i]!, seen[i]!);
  return { items, emptyDirs: list.emptyDirs, badNames: list.badNames, folders: list.folders };
}

/**
 * Everything under the workspace root, links reported as links and never
 * followed: each folder is opened through its parent's descriptor without
 * following a link (beneath.ts), so a folder swapped for a link mid-scan is
 * seen as the link, and depth is not bounded by the system's path limit.
 * What vanishes between listing and stat (an editor's swap file) is left out.
 * A list, not a Map: status compares it with the stat index in this order
 * (sync/status-look.ts) without a lookup per path.
 */
export function scanList(root: Folder): ScanList {
  const paths: string[] = [];
  const seen: Observed[] = [];
  const emptyDirs = new Set<string>();
  const folders: string[] = [];
  const badNames: string[] = [];
  const native = libc();
  const fields = new Float64Array(STAT_FIELDS.count);
  const visit = (folder: Folder, prefix: string) => {
    const { names, badNames: bad } = readNames(folder.path);
    for (const name of bad) badNames.push(prefix + name);
    if (names.length === 0 && bad.length === 0 && prefix !== '') emptyDirs.add(prefix.slice(0, -1));
    // Stats relative to the open folder: the kernel does not walk the whole path again for each file.
    const dirFd = native ? folder.descriptor : undefined;
    for (const name of names) {
      const relative = prefix + name;
      let observed: Observed;
      if (dirFd !== undefined && native!.statAt(dirFd, name, fields)) observed = observeFields(fields);
      else {
        const stats = fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
        if (!stats) continue;
        observed = observe(stats);
      }
      if (observed.kind === 'dir') {
        const inner = folder.openChild(name);
        if (inner) {
          paths.push(relative);
          seen.push(observed);
          folders.push(relative);
          try {
            visit(inner, `${relative}/`);
          } finally {
            inner.close();
          }
          continue;
        }
        // Swapped for a link or a file since the stat: seen as what it is now.
        const now = fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
        if (!now) continue;
        observed = observe(now);
      }
      paths.push(relative);
      seen.push(observed);
    }
  };
  visit(root, '');
  return { paths, seen, emptyDirs, badNames, folders };
}

/** The bytes of a symbolic link entry: its target text. `at` is the link's path from beneath.ts. */
export function readLinkTarget(at: string): Buffer {
  return Buffer.from(fs.readlinkSync(at));
}

/**
 * On a folder that folds case, extraction puts entries whose folders differ
 * only in case into one folder: `docs/b.txt` lands in the `Docs/` that
 * `Docs/a.txt` made. The disk then shows the entry under a spelling the
 * archive itself uses for that folder, and it is the same entry: what the scan
 * found is filed under the entry's own name, which sync keeps. A spelling the
 * archive does not use came from outside (`mv docs Docs`): that is a rename,
 * shown and synced as one. Open refused true collisions (platform-names.ts).
 */
export function matchFoldedNames(items: Map<string, Observed>, emptyDirs: Set<string>, entries: EntryRecord[]): void {
  const folders = foldersOf(entries);
  // The disk's spelling is the archive's own when every component that differs names one of its folders.
  const explained = (disk: string, entry: string) => {
    const [d, e] = [disk.split('/'), entry.split('/')];
    return d.every((part, i) => part === e[i] || folders.has(d.slice(0, i + 1).join('/')));
  };
  const disk = new Map(items);
  const byFold = new Map<string, string[]>();
  for (const found of disk.keys()) {
    const key = foldCase(found);
    byFold.set(key, [...(byFold.get(key) ?? []), found]);
  }
  const entryPaths = new Set(entries.map((entry) => entry.path));
  for (const entry of entries) {
    if (entry.path === '' || items.has(entry.path)) continue;
    const found = byFold.get(foldCase(entry.path))?.find((spelling) => explained(spelling, entry.path));
    if (found === undefined) continue;
    items.set(entry.path, disk.get(found)!);
    if (emptyDirs.has(found)) emptyDirs.add(entry.path);
    // Still there under its own name when it is an entry too (folders `Docs/` and `docs/`: one folder on disk).
    if (!entryPaths.has(found)) {
      items.delete(found);
      emptyDirs.delete(found);
    }
  }
}
