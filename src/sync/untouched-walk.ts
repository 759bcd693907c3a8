/**
 * status's fastest way to "nothing changed": the workspace walked once and compared with the stat
 * index (session/stat-index.ts) as it goes, in the order the index lists the entries (the scan's
 * order, which status writes it in). An untouched file costs its statx and the comparison of a
 * few numbers and of its name's bytes, as the kernel listed them (getdents64), with the index's:
 * no string, no Observed object, no list of what was found. It answers only "clean", and only
 * where stat-verdict.ts's verdictInOrder would on the same folder (every entry in its place and
 * kind, untouched by content-match.ts's one rule, every folder on disk an entry or holding
 * something, nothing else there); at the first thing it cannot vouch for (a difference, a new or
 * missing item, the index in another order, a name that is not UTF-8, an item gone or swapped
 * while it looked) it stops, and status takes the long way (status-look.ts), which decides.
 */
import { type Libc, STAT_FIELDS, libc } from '../base/libc.ts';
import type { Folder } from '../files/beneath.ts';
import { TYPE_DIR, type StatIndex } from '../session/stat-index.ts';
import { S_IFDIR, S_IFMT, S_IFREG } from '../zip/constants.ts';
import type { Observed } from './observed.ts';
import { isRoot, untouchedAt } from './stat-verdict.ts';

/** Where a linux_dirent64 keeps its record length and its name. */
const DIRENT = { reclen: 16, name: 19 } as const;
const ENTRIES_BYTES = 64 << 10;
const SLASH = 0x2f;
const DOT = 0x2e;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** One walk's state: the index's cursor (entry `j`, whose path starts at byte `at` of pathUtf8) and its buffers. */
class Walk {
  j = 0;
  at = 0;
  /** The path of the folder being walked, with its `/` (none for the root): the bytes every entry in it starts with. */
  prefix = new Uint8Array(4096);
  /** The prefix's length at each depth. */
  readonly prefixLengths: number[] = [];
  /** One buffer of entries per depth: a folder's stays whole while the walk is in one it holds. */
  readonly buffers: Uint8Array[] = [];
  readonly fields = new Float64Array(STAT_FIELDS.count);
  /** One object, refilled for each file: what untouchedAt compares the index's columns with. */
  readonly now: Observed = { kind: 'file', size: 0, mtime_ms: 0, ctime_ms: 0, ino: 0, nlink: 0 };

  constructor(
    readonly native: Libc,
    readonly index: StatIndex,
    readonly fenceMs: number | undefined,
  ) {}

  /** Steps past root entries ("./", the workspace itself, always there), and the NUL that ends each empty path. */
  skipRoots(): void {
    while (this.j < this.index.count && isRoot(this.index, this.j)) {
      this.j++;
      this.at++;
    }
  }

  /**
   * Whether entry `j`'s path is the prefix's `prefixLength` bytes and then the NUL-terminated name at `nameAt` of
   * `names`; where it is, the byte past its end (where the next entry's path starts), else -1.
   */
  entryAt(prefixLength: number, names: Uint8Array, nameAt: number): number {
    const bytes = this.index.pathUtf8;
    if (this.j >= this.index.count) return -1;
    let p = this.at;
    for (let i = 0; i < prefixLength; i++) if (bytes[p++] !== this.prefix[i]) return -1;
    for (let i = nameAt; names[i] !== 0; i++) if (bytes[p++] !== names[i]) return -1;
    return p === bytes.length || bytes[p] === 0 ? p + 1 : -1;
  }

  /** `implied`: the folder is no entry, so it must hold something (the diff then counts it implied). */
  visit(folder: Folder, depth: number, prefixLength: number, implied: boolean): boolean {
    const dirFd = folder.descriptor;
    if (dirFd === undefined) return false;
    this.prefixLengths[depth] = prefixLength;
    const names = (this.buffers[depth] ??= new Uint8Array(new ArrayBuffer(ENTRIES_BYTES)));
    let held = false;
    for (let read = this.native.readEntries(dirFd, names, 'start'); read !== 0; ) {
      if (read < 0) return false;
      for (let record = 0, length = 0; record < read; record += length) {
        length = names[record + DIRENT.reclen]! | (names[record + DIRENT.reclen + 1]! << 8);
        if (length === 0) return false; // never from the kernel: no loop on a damaged record
        const nameAt = record + DIRENT.name;
        if (
          names[nameAt] === DOT &&
          (names[nameAt + 1] === 0 || (names[nameAt + 1] === DOT && names[nameAt + 2] === 0))
        )
          continue;
        held = true;
        if (!this.item(folder, depth, names, nameAt)) return false;
      }
      read = this.native.readEntries(dirFd, names, 'next');
    }
    return held || !implied;
  }

  /** One item of a folder: a file the index's next entry holds untouched, or a folder walked in turn. */
  item(folder: Folder, depth: number, names: Uint8Array, nameAt: number): boolean {
    const { index, fields } = this;
    if (!this.native.statEntry(folder.descriptor!, names, nameAt, fields)) return false;
    this.skipRoots();
    const next = this.entryAt(this.prefixLengths[depth]!, names, nameAt);
    const type = fields[STAT_FIELDS.mode]! & S_IFMT;
    if (type === S_IFDIR) return this.folder(folder, { depth, names, nameAt }, next);
    if (next < 0 || type !== S_IFREG || (index.flags[this.j]! & 3) === TYPE_DIR) return false;
    const { now } = this;
    now.size = fields[STAT_FIELDS.size]!;
    now.mtime_ms = fields[STAT_FIELDS.mtimeMs]!;
    now.ctime_ms = fields[STAT_FIELDS.ctimeMs]!;
    now.ino = fields[STAT_FIELDS.ino]!;
    if (!untouchedAt(index, this.j, now, this.fenceMs)) return false;
    this.j++;
    this.at = next;
    return true;
  }

  /** A folder: entry `j` when `next` says its path is there (then a folder entry), else implied; walked in turn. */
  folder(parent: Folder, at: { depth: number; names: Uint8Array; nameAt: number }, next: number): boolean {
    if (next >= 0) {
      if ((this.index.flags[this.j]! & 3) !== TYPE_DIR) return false;
      this.j++;
      this.at = next;
    }
    const end = at.names.indexOf(0, at.nameAt);
    let name: string;
    try {
      name = strictUtf8.decode(at.names.subarray(at.nameAt, end)); // not UTF-8: the scan lists it as a bad name
    } catch {
      return false;
    }
    const prefixLength = this.prefixLengths[at.depth]!;
    const length = prefixLength + (end - at.nameAt) + 1;
    if (length > this.prefix.length) return false;
    this.prefix.set(at.names.subarray(at.nameAt, end), prefixLength);
    this.prefix[length - 1] = SLASH;
    const inner = parent.openChild(name);
    if (!inner) return false; // swapped for something else since the stat
    try {
      return this.visit(inner, at.depth + 1, length, next < 0);
    } finally {
      inner.close();
    }
  }
}

/**
 * Whether the folder under `root` is, by stat, exactly what `index` lists, in its order. False means
 * "not sure", never "changed": the caller then scans and compares the long way.
 */
export function untouchedInOrder(root: Folder, index: StatIndex, fenceMs: number | undefined): boolean {
  const native = libc();
  if (!native) return false;
  const walk = new Walk(native, index, fenceMs);
  if (!walk.visit(root, 0, 0, false)) return false;
  walk.skipRoots();
  return walk.j === index.count;
}
