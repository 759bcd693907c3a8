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
import { crc32 } from '../zip/codec.ts';
import type { EntryRecord, Manifest } from './manifest.ts';

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

export function observe(stats: fs.Stats): Observed {
  const kind = stats.isSymbolicLink() ? 'symlink' : stats.isDirectory() ? 'dir' : 'file';
  return { kind, size: stats.size, mtime_ms: stats.mtimeMs, ctime_ms: stats.ctimeMs, ino: stats.ino };
}

/** Everything under the workspace root, links reported as links and never followed. */
function scan(root: string): { items: Map<string, Observed>; emptyDirs: Set<string> } {
  const items = new Map<string, Observed>();
  const emptyDirs = new Set<string>();
  const visit = (dir: string, prefix: string) => {
    const names = fs.readdirSync(dir);
    if (names.length === 0 && prefix !== '') emptyDirs.add(prefix.slice(0, -1));
    for (const name of names) {
      const relative = prefix + name;
      const observed = observe(fs.lstatSync(path.join(dir, name)));
      items.set(relative, observed);
      if (observed.kind === 'dir') visit(path.join(dir, name), `${relative}/`);
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

/** File timestamps come from the kernel's coarse clock, a few ms behind: only a ctime this much older than the end of extraction proves a file untouched since. */
const COARSE_CLOCK_MARGIN_MS = 20;

/**
 * Whether the stat alone proves a file untouched: the stat recorded when zipfs
 * last wrote or read it (after a sync), or else, right after open, the archive's
 * size and mtime with a ctime from before extraction ended. Any write, utimes,
 * rename or copy moves ctime forward, and nothing can set it back.
 */
function untouched(entry: EntryRecord, now: Observed, extractedAtMs: number | undefined): boolean {
  const recorded = entry.extracted;
  if (recorded) return recorded.size === now.size && recorded.mtime_ms === now.mtime_ms && recorded.ctime_ms === now.ctime_ms && recorded.ino === now.ino;
  return extractedAtMs !== undefined && now.size === entry.size && Math.abs(now.mtime_ms - entry.mtime_ms) < 1 && now.ctime_ms < extractedAtMs - COARSE_CLOCK_MARGIN_MS;
}

/** CRC-32 of a file, read in chunks so a large file costs no more memory than one chunk. */
function fileCrc(file: string): number {
  const fd = fs.openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(1 << 20);
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
  const extractedAtMs = session.extracted_at_ms;
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
    else if (now.kind === 'file' && untouched(entry, now, extractedAtMs)) state = 'unchanged';
    else state = contentMatches(root, entry, now) ? 'unchanged' : 'modified';
    states.set(entry.index, state);
    const shown = entry.type === 'dir' ? `${entry.path}/` : entry.path;
    if (state === 'unchanged') unchangedCount++;
    else (state === 'modified' ? modified : deleted).push(shown);
  }

  // Folders the archive implied (parents of entries) are not new; new files
  // are, and so are new folders with nothing in them, which no file would carry.
  const implied = new Set<string>();
  for (const entry of entries) {
    for (let slash = entry.path.indexOf('/'); slash >= 0; slash = entry.path.indexOf('/', slash + 1)) implied.add(entry.path.slice(0, slash));
  }
  const additions: WorkspaceDiff['additions'] = [];
  for (const [relative, observed] of [...items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (known.has(relative)) continue;
    if (observed.kind === 'dir' && (!emptyDirs.has(relative) || implied.has(relative))) continue;
    additions.push({ path: relative, observed });
  }
  const added = additions.map((a) => (a.observed.kind === 'dir' ? `${a.path}/` : a.path));
  const sort = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { modified: sort(modified), added: sort(added), deleted: sort(deleted), unchangedCount, states, additions, observed: items };
}
