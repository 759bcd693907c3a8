/**
 * What changed in a workspace against its manifest. Any program may have
 * edited it, so the truth is the disk: each file's size, mtime, ctime and
 * inode are compared with the stat recorded when zipfs last wrote or read it.
 * ctime cannot be set back by utimes, so an edit that keeps size and mtime is
 * still seen; when the stat differs, the content's CRC-32 decides (a `touch`
 * or a copy of the same bytes is not a change).
 *
 * The scan never opens what is not a regular file, and it notes what a zip
 * cannot take faithfully (special files, names that are not UTF-8, hard links
 * to files outside the workspace): status lists them, sync refuses them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { withBeneath, type Beneath, type Folder } from '../files/beneath.ts';
import { libc, type FileStat } from '../base/libc.ts';
import { crc32 } from '../zip/codec.ts';
import { S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from '../zip/constants.ts';
import { tryDecodeUtf8 } from '../zip/names.ts';
import { foldersOf } from '../rules/item-type.ts';
import { maxEntryPathBytes, unwritableName } from '../rules/entry-paths.ts';
import { findRenames } from './renames.ts';
import { foldCase } from '../rules/platform-names.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { openRegularFile, specialKind } from '../base/regular-file.ts';
import type { Base } from '../workspace/base.ts';
import type { Observed } from './observed.ts';

/** `renamed`: the entry is on disk under another path (renames.ts), maybe with new content. */
export type EntryState = 'unchanged' | 'modified' | 'deleted' | 'renamed';

/** A path sync cannot write into a zip as it is, and why. */
export interface Unsupported {
  path: string;
  reason: string;
}

export interface WorkspaceDiff {
  /** The base's entries the scan compared, in index order (Base.compared): the others are untouched. */
  entries: EntryRecord[];
  /** Sorted workspace paths; folders end with `/`. */
  modified: string[];
  added: string[];
  deleted: string[];
  unchangedCount: number;
  /** Entries that moved, sorted by their new path; not in `deleted` or `added`. Folders end with `/`. */
  renamed: { from: string; to: string; modified?: true }[];
  /** Where each renamed entry is now, by its index. */
  renames: Map<number, string>;
  /** Changed or added paths that sync refuses, sorted by path. */
  unsupported: Unsupported[];
  /** The state of each manifest entry, by its index. */
  states: Map<number, EntryState>;
  /** New things on disk, in path order. */
  additions: { path: string; observed: Observed }[];
  /** Everything on disk, by path. */
  observed: Map<string, Observed>;
}

export function observe(stats: fs.Stats | FileStat): Observed {
  const type = stats.mode & S_IFMT;
  const kind = type === S_IFLNK ? 'symlink' : type === S_IFDIR ? 'dir' : type === S_IFREG ? 'file' : 'special';
  const observed: Observed = {
    kind,
    size: stats.size,
    mtime_ms: stats.mtimeMs,
    ctime_ms: stats.ctimeMs,
    ino: stats.ino,
    nlink: stats.nlink,
  };
  if (kind === 'special') observed.what = specialKind(stats.mode) ?? 'not a regular file';
  return observed;
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
  if (!names.some((name) => name.includes('\uFFFD'))) return { names, badNames: [] };
  const good: string[] = [];
  const badNames: string[] = [];
  for (const raw of fs.readdirSync(dir, { encoding: 'buffer' })) {
    const decoded = tryDecodeUtf8(raw);
    if (decoded === undefined) badNames.push(escapedName(raw));
    else good.push(decoded);
  }
  return { names: good, badNames };
}

/**
 * Everything under the workspace root, links reported as links and never
 * followed: each folder is opened through its parent's descriptor without
 * following a link (beneath.ts), so a folder swapped for a link mid-scan is
 * seen as the link, and depth is not bounded by the system's path limit.
 * What vanishes between listing and stat (an editor's swap file) is left out.
 */
function scan(root: Folder): { items: Map<string, Observed>; emptyDirs: Set<string>; badNames: string[] } {
  const items = new Map<string, Observed>();
  const emptyDirs = new Set<string>();
  const badNames: string[] = [];
  const native = libc();
  const visit = (folder: Folder, prefix: string) => {
    const { names, badNames: bad } = readNames(folder.path);
    for (const name of bad) badNames.push(prefix + name);
    if (names.length === 0 && bad.length === 0 && prefix !== '') emptyDirs.add(prefix.slice(0, -1));
    // Stats relative to the open folder: the kernel does not walk the whole path again for each file.
    const dirFd = native ? folder.descriptor : undefined;
    for (const name of names) {
      const relative = prefix + name;
      const stats =
        (dirFd !== undefined && native!.statAt(dirFd, name)) ||
        fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
      if (!stats) continue;
      let observed = observe(stats);
      if (observed.kind === 'dir') {
        const inner = folder.openChild(name);
        if (inner) {
          items.set(relative, observed);
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
      items.set(relative, observed);
    }
  };
  visit(root, '');
  return { items, emptyDirs, badNames };
}

/** The bytes of a symbolic link entry: its target text. `at` is the link's path from beneath.ts. */
export function readLinkTarget(at: string): Buffer {
  return Buffer.from(fs.readlinkSync(at));
}

/**
 * Whether the stat alone proves a file untouched: the stat recorded when zipfs
 * last wrote or read it (after a sync), or else, right after open, the archive's
 * size and mtime with a ctime before the fence open set (ctime-fence.ts). Any
 * write, utimes, rename or copy moves ctime forward, and nothing can set it back.
 */
function untouched(entry: EntryRecord, now: Observed, fenceMs: number | undefined): boolean {
  const recorded = entry.extracted;
  if (recorded)
    return (
      recorded.size === now.size &&
      recorded.mtime_ms === now.mtime_ms &&
      recorded.ctime_ms === now.ctime_ms &&
      recorded.ino === now.ino
    );
  return (
    fenceMs !== undefined &&
    now.size === entry.size &&
    Math.abs(now.mtime_ms - entry.mtime_ms) < 1 &&
    now.ctime_ms < fenceMs
  );
}

const CRC_CHUNK_BYTES = 1 << 20;
let crcChunk: Buffer | undefined;

/** CRC-32 of a file, read in chunks (one buffer, reused) so a large file costs no more memory than one chunk. */
function fileCrc(at: string, relative: string): number {
  const { fd } = openRegularFile(at, relative);
  const chunk = (crcChunk ??= Buffer.allocUnsafe(CRC_CHUNK_BYTES));
  let crc = 0;
  try {
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; ) crc = crc32(chunk.subarray(0, n), crc);
  } finally {
    fs.closeSync(fd);
  }
  return crc;
}

/** CRC-32 of a workspace file (rename detection, merge); undefined when it cannot be read (gone, swapped for a link). */
export function addedCrc(beneath: Beneath, relative: string): number | undefined {
  beneath.keepFoldersOf(relative);
  try {
    return fileCrc(beneath.place(relative).path, relative);
  } catch (error) {
    if (error instanceof ZipfsError || isSystemError(error)) return undefined;
    throw error;
  }
}

/**
 * Whether the content on disk is the entry's, or 'gone' when the file vanished
 * since the scan. A file swapped for a link or a special file meanwhile is a change.
 */
function contentMatches(beneath: Beneath, entry: EntryRecord, now: Observed): boolean | 'gone' {
  beneath.keepFoldersOf(entry.path);
  try {
    const at = beneath.place(entry.path).path;
    if (now.kind === 'symlink') {
      const target = readLinkTarget(at);
      return target.length === entry.size && crc32(target) === entry.crc32;
    }
    return now.size === entry.size && fileCrc(at, entry.path) === entry.crc32;
  } catch (error) {
    if (isSystemError(error, 'ENOENT') || (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND'))
      return 'gone';
    if (error instanceof ZipfsError || isSystemError(error, 'EINVAL', 'ELOOP', 'ENOTDIR')) return false;
    throw error;
  }
}

/**
 * Changed or added paths whose content would come from outside the workspace
 * or cannot be stored: special files, and regular files with more links than
 * the workspace holds (a hard link to a file elsewhere: packing it would copy
 * outside content into the zip, and a later write through the other link
 * would change the workspace behind zipfs's back).
 */
function findUnsupported(
  changed: string[],
  additions: WorkspaceDiff['additions'],
  items: Map<string, Observed>,
  badNames: string[],
  maxPathBytes: number,
): Unsupported[] {
  const found: Unsupported[] = badNames.map((name) => ({
    path: name,
    reason: 'its name is not valid UTF-8; rename it',
  }));
  // An added path becomes an entry name: never one that open would refuse or read back as another path.
  for (const { path: relative } of additions) {
    const reason = unwritableName(relative, maxPathBytes);
    if (reason) found.push({ path: relative, reason });
  }
  let linksInside: Map<number, number> | undefined;
  for (const relative of changed) {
    const observed = items.get(relative);
    if (!observed) continue;
    if (observed.kind === 'special') {
      found.push({ path: relative, reason: `it is ${observed.what}, which a zip cannot hold; delete it` });
    } else if (observed.kind === 'file' && observed.nlink > 1) {
      if (!linksInside) {
        linksInside = new Map();
        for (const item of items.values())
          if (item.kind === 'file' && item.nlink > 1) linksInside.set(item.ino, (linksInside.get(item.ino) ?? 0) + 1);
      }
      const inside = linksInside.get(observed.ino) ?? 0;
      if (inside < observed.nlink) {
        found.push({
          path: relative,
          reason: `it is a hard link to a file outside the workspace (${observed.nlink} links, ${inside} inside); make it a file of its own (cp it to a new name and mv that back)`,
        });
      }
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
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
function matchFoldedNames(items: Map<string, Observed>, emptyDirs: Set<string>, entries: EntryRecord[]): void {
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

/** `root`: a session's contents folder, `<workspaces>/<name>/contents`. */
export function diffWorkspace(root: string, base: Base): WorkspaceDiff {
  return withBeneath(root, (beneath) => compare(beneath, base));
}

function compare(beneath: Beneath, base: Base): WorkspaceDiff {
  const session = base.record;
  const fenceMs = session.ctime_fence_ms;
  const { items, emptyDirs, badNames } = scan(beneath.folder(''));
  // The base's entries that may differ from the folder; the others are untouched (workspace/base.ts).
  const entries = base.compared(items);
  if (session.case_insensitive === true) matchFoldedNames(items, emptyDirs, entries);
  const states = new Map<number, EntryState>();
  const modified: string[] = [];
  const deleted: string[] = [];
  // Paths on disk that an entry accounts for. A path whose kind changed between a folder and a
  // non-folder (`rm -r d; echo x > d`, `rm f; mkdir f`) is two things: the entry, deleted, and what
  // is there now, added; keyed by path alone, the new file would pass for the old folder and be lost.
  const known = new Set<string>();
  let unchangedCount = 0;

  for (const entry of entries) {
    const now = items.get(entry.path);
    if (now && (entry.type === 'dir') === (now.kind === 'dir')) known.add(entry.path);
    let state: EntryState;
    if (entry.type === 'dir')
      state = entry.path === '' || now?.kind === 'dir' ? 'unchanged' : 'deleted'; // '': a root entry ("./"), the workspace itself
    else if (!now || now.kind === 'dir') state = 'deleted';
    else if (now.kind === 'special' || (entry.type === 'file' && now.kind === 'symlink')) state = 'modified';
    else if (now.kind === 'file' && untouched(entry, now, fenceMs)) state = 'unchanged';
    else {
      const matches = contentMatches(beneath, entry, now);
      if (matches === 'gone') items.delete(entry.path);
      state = matches === 'gone' ? 'deleted' : matches ? 'unchanged' : 'modified';
    }
    states.set(entry.index, state);
    const shown = entry.type === 'dir' ? `${entry.path}/` : entry.path;
    if (state === 'unchanged') unchangedCount++;
    else (state === 'modified' ? modified : deleted).push(shown);
  }

  // Folders follow the archive's convention. Where it stores folder entries (a jar, most zip tools), a new
  // folder gets one, empty or not; where it stores none, folders are implied by their files, and only an
  // empty one needs an entry to exist at all. Folders the archive implied are never new.
  let stores: boolean | undefined;
  const storesFolders = () =>
    (stores ??= entries.some((entry) => entry.type === 'dir' && entry.path !== '') || base.untouchedStoreFolders());
  let implied: Set<string> | undefined;
  const isImplied = (dir: string) => (implied ??= foldersOf(entries)).has(dir) || base.untouchedHaveFolder(dir);
  let additions: WorkspaceDiff['additions'] = [];
  for (const [relative, observed] of items) {
    if (known.has(relative)) continue;
    if (observed.kind === 'dir' && ((!storesFolders() && !emptyDirs.has(relative)) || isImplied(relative))) continue;
    additions.push({ path: relative, observed });
  }
  additions.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const gone = entries.filter((entry) => states.get(entry.index) === 'deleted');
  const found =
    gone.length > 0 && additions.length > 0
      ? findRenames(gone, additions, (relative) => addedCrc(beneath, relative))
      : [];
  const renames = new Map(found.map((rename) => [rename.index, rename.to]));
  // Shown as status shows paths: a folder with its trailing `/`.
  const folderMark = new Set(gone.filter((entry) => entry.type === 'dir').map((entry) => entry.index));
  const renamed = found
    .map(({ index, from, to, modified: changed }) => {
      const mark = folderMark.has(index) ? '/' : '';
      return changed
        ? { from: from + mark, to: to + mark, modified: true as const }
        : { from: from + mark, to: to + mark };
    })
    .sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  if (found.length > 0) {
    for (const rename of found) states.set(rename.index, 'renamed');
    const moved = new Set(renamed.map((rename) => rename.from));
    const arrived = new Set(found.map((rename) => rename.to));
    deleted.splice(0, deleted.length, ...deleted.filter((shown) => !moved.has(shown)));
    additions = additions.filter((addition) => !arrived.has(addition.path));
  }
  const added = [...additions.map((a) => (a.observed.kind === 'dir' ? `${a.path}/` : a.path)), ...badNames];
  // A rename writes a new name, and its content comes from the workspace: checked as an addition is.
  const written = [...additions, ...found.map((rename) => ({ path: rename.to, observed: items.get(rename.to)! }))];
  const unsupported = findUnsupported(
    [...modified, ...written.map((a) => a.path)],
    written,
    items,
    badNames,
    maxEntryPathBytes(path.dirname(path.dirname(beneath.root))),
  );
  const sort = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The untouched entries are unchanged: their bytes are the zip's.
  unchangedCount += base.count - entries.length;
  return {
    entries,
    modified: sort(modified),
    added: sort(added),
    deleted: sort(deleted),
    renamed,
    renames,
    unchangedCount,
    unsupported,
    states,
    additions,
    observed: items,
  };
}
