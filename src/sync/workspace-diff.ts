/**
 * What changed in a workspace against its manifest. Any program may have
 * edited it, so the truth is the disk: each file's size, mtime, ctime and
 * inode are compared with the stat recorded when zipfs last wrote or read it.
 * ctime cannot be set back by utimes, so an edit that keeps size and mtime is
 * still seen; when the stat differs, the content's CRC-32 decides (a `touch`
 * or a copy of the same bytes is not a change).
 */
import fs from 'node:fs';
import path from 'node:path';
import { libc, type FileStat } from '../native/libc.ts';
import { crc32 } from '../zip/codec.ts';
import { S_IFDIR, S_IFLNK, S_IFMT } from '../zip/constants.ts';
import { foldersOf } from '../open/extraction-plan.ts';
import type { EntryRecord, Manifest } from '../session/manifest.ts';

/** How a path in the workspace looks now. */
export interface Observed {
  kind: 'file' | 'symlink' | 'dir';
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
}

export type EntryState = 'unchanged' | 'modified' | 'deleted';

export interface WorkspaceDiff {
  /** Sorted workspace paths; folders end with `/`. */
  modified: string[];
  added: string[];
  deleted: string[];
  unchangedCount: number;
  /** The state of each manifest entry, by its index. */
  states: Map<number, EntryState>;
  /** New things on disk, in path order. */
  additions: { path: string; observed: Observed }[];
  /** Everything on disk, by path. */
  observed: Map<string, Observed>;
}

export function observe(stats: fs.Stats | FileStat): Observed {
  const type = stats.mode & S_IFMT;
  const kind = type === S_IFLNK ? 'symlink' : type === S_IFDIR ? 'dir' : 'file';
  return { kind, size: stats.size, mtime_ms: stats.mtimeMs, ctime_ms: stats.ctimeMs, ino: stats.ino };
}

/** Everything under the workspace root, links reported as links and never followed. */
function scan(root: string): { items: Map<string, Observed>; emptyDirs: Set<string> } {
  const items = new Map<string, Observed>();
  const emptyDirs = new Set<string>();
  const native = libc();
  const visit = (dir: string, prefix: string) => {
    const names = fs.readdirSync(dir);
    if (names.length === 0 && prefix !== '') emptyDirs.add(prefix.slice(0, -1));
    // Stats relative to the open folder: the kernel does not walk the whole path again for each file.
    const dirFd = native && names.length > 0 ? fs.openSync(dir, 'r') : undefined;
    try {
      for (const name of names) {
        const relative = prefix + name;
        const stats = (dirFd !== undefined && native!.statAt(dirFd, name)) || fs.lstatSync(path.join(dir, name));
        const observed = observe(stats);
        items.set(relative, observed);
        if (observed.kind === 'dir') visit(path.join(dir, name), `${relative}/`);
      }
    } finally {
      if (dirFd !== undefined) fs.closeSync(dirFd);
    }
  };
  visit(root, '');
  return { items, emptyDirs };
}

/** The bytes an entry would be written from: a file's content, or a link's target text. */
export function readWorkspaceItem(root: string, relative: string, kind: Observed['kind']): Buffer {
  const absolute = path.join(root, relative);
  return kind === 'symlink' ? Buffer.from(fs.readlinkSync(absolute)) : fs.readFileSync(absolute);
}

/**
 * Whether the stat alone proves a file untouched: the stat recorded when zipfs
 * last wrote or read it (after a sync), or else, right after open, the archive's
 * size and mtime with a ctime before the fence open set (ctime-fence.ts). Any
 * write, utimes, rename or copy moves ctime forward, and nothing can set it back.
 */
function untouched(entry: EntryRecord, now: Observed, fenceMs: number | undefined): boolean {
  const recorded = entry.extracted;
  if (recorded) return recorded.size === now.size && recorded.mtime_ms === now.mtime_ms && recorded.ctime_ms === now.ctime_ms && recorded.ino === now.ino;
  return fenceMs !== undefined && now.size === entry.size && Math.abs(now.mtime_ms - entry.mtime_ms) < 1 && now.ctime_ms < fenceMs;
}

const CRC_CHUNK_BYTES = 1 << 20;
let crcChunk: Buffer | undefined;

/** CRC-32 of a file, read in chunks (one buffer, reused) so a large file costs no more memory than one chunk. */
function fileCrc(file: string): number {
  const fd = fs.openSync(file, 'r');
  const chunk = (crcChunk ??= Buffer.allocUnsafe(CRC_CHUNK_BYTES));
  let crc = 0;
  try {
    for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; ) crc = crc32(chunk.subarray(0, n), crc);
  } finally {
    fs.closeSync(fd);
  }
  return crc;
}

function contentMatches(root: string, entry: EntryRecord, now: Observed): boolean {
  if (now.kind === 'symlink') {
    const target = readWorkspaceItem(root, entry.path, 'symlink');
    return target.length === entry.size && crc32(target) === entry.crc32;
  }
  return now.size === entry.size && fileCrc(path.join(root, entry.path)) === entry.crc32;
}

export function diffWorkspace(root: string, { session, entries }: Manifest): WorkspaceDiff {
  const fenceMs = session.ctime_fence_ms;
  const { items, emptyDirs } = scan(root);
  const states = new Map<number, EntryState>();
  const modified: string[] = [];
  const deleted: string[] = [];
  const known = new Set<string>();
  let unchangedCount = 0;

  for (const entry of entries) {
    known.add(entry.path);
    const now = items.get(entry.path);
    let state: EntryState;
    if (entry.type === 'dir') state = now?.kind === 'dir' ? 'unchanged' : 'deleted';
    else if (!now || now.kind === 'dir') state = 'deleted';
    else if (entry.type === 'file' && now.kind === 'symlink') state = 'modified';
    else if (now.kind === 'file' && untouched(entry, now, fenceMs)) state = 'unchanged';
    else state = contentMatches(root, entry, now) ? 'unchanged' : 'modified';
    states.set(entry.index, state);
    const shown = entry.type === 'dir' ? `${entry.path}/` : entry.path;
    if (state === 'unchanged') unchangedCount++;
    else (state === 'modified' ? modified : deleted).push(shown);
  }

  // Folders the archive implied (parents of entries) are not new; new files
  // are, and so are new folders with nothing in them, which no file would carry.
  let implied: Set<string> | undefined;
  const isImplied = (dir: string) => (implied ??= foldersOf(entries)).has(dir);
  const additions: WorkspaceDiff['additions'] = [];
  for (const [relative, observed] of items) {
    if (known.has(relative)) continue;
    if (observed.kind === 'dir' && (!emptyDirs.has(relative) || isImplied(relative))) continue;
    additions.push({ path: relative, observed });
  }
  additions.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const added = additions.map((a) => (a.observed.kind === 'dir' ? `${a.path}/` : a.path));
  const sort = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { modified: sort(modified), added: sort(added), deleted: sort(deleted), unchangedCount, states, additions, observed: items };
}
