/**
 * The entries of a lazy session (DESIGN.md, "Lazy sessions"): the archive's
 * central directory as it was at open or the last sync, kept in the session as
 * `central.bin` and held packed (packed-directory.ts), with one workspace path
 * and one type per entry, and an index of the paths in sorted order for
 * lookups and listings. An entry the manifest does not list is not extracted:
 * it is unchanged, its bytes come from the zip, and its absence from the
 * folder is not a deletion.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, type Refuse, throwRefusal } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { PackedDirectory, assertReadable, lockedEntry, plainlyReadable } from '../zip/index.ts';
import { entryPath, isPlainPath } from '../rules/entry-paths.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import type { ItemType } from '../rules/item-type.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import {
  DIRECTORY_COPY,
  entryRecord,
  sessionDamaged,
  type EntryRecord,
  type LazyFacts,
  type SessionRecord,
} from './manifest.ts';
import { centralCountProblem, centralFileProblem } from './lazy-integrity.ts';
import { checkClashes, checkOverlaps, platformMisfits } from './lazy-entry-checks.ts';

/** The file beside manifest.jsonl holding the base archive's central directory (manifest.ts). */
export const CENTRAL_FILE = DIRECTORY_COPY;

const TYPES: readonly ItemType[] = ['file', 'dir', 'symlink'];

/**
 * Whether entry `index`'s name is its own workspace path (entry-paths.ts, isPlainPath), with no extra field that might
 * name it otherwise.
 */
export function plainPath(directory: PackedDirectory, index: number): boolean {
  return (
    directory.field16(index, 30) === 0 &&
    isPlainPath(directory.region, directory.nameStart(index), directory.nameLength(index))
  );
}

export class LazyEntries {
  private sortedOrder: Uint32Array | undefined;
  private readonly cannotHold: Map<number, string>;

  constructor(
    readonly directory: PackedDirectory,
    /** Each entry's workspace path ('' for a root entry, "./"). */
    readonly paths: string[],
    /** Each entry's type, as an index into TYPES. */
    private readonly typeCodes: Uint8Array,
    unrepresentable: LazyFacts['unrepresentable'] = [],
  ) {
    this.cannotHold = new Map(unrepresentable.map((u) => [u.index, u.reason]));
  }

  get count(): number {
    return this.paths.length;
  }

  type(index: number): ItemType {
    return TYPES[this.typeCodes[index]!]!;
  }

  /** Why the workspace's folder cannot hold entry `index`, or undefined. */
  unrepresentable(index: number): string | undefined {
    return this.cannotHold.get(index);
  }

  /** The manifest record of entry `index`, as open would have written it. */
  record(index: number): EntryRecord {
    return entryRecord(this.directory.entry(index), this.paths[index]!, this.type(index));
  }

  /** Entry indexes by path (code-unit order), computed once. */
  sorted(): Uint32Array {
    if (this.sortedOrder) return this.sortedOrder;
    const order = new Uint32Array(this.count);
    for (let i = 0; i < order.length; i++) order[i] = i;
    const paths = this.paths;
    order.sort((a, b) => (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
    return (this.sortedOrder = order);
  }

  /** The index of the entry at `relative`, or -1. */
  indexOf(relative: string): number {
    const order = this.sorted();
    const at = this.lowerBound(relative);
    return at < order.length && this.paths[order[at]!] === relative ? order[at]! : -1;
  }

  /**
   * Calls `visit` with the index of every entry below folder `relative` ('' for all), in path
   * order, until it returns false. A callback, not a generator: each step of an iterator is an
   * object, and a listing of a million entries must not make a million of them.
   */
  forEachUnder(relative: string, visit: (index: number) => boolean | void): void {
    const order = this.sorted();
    const prefix = relative === '' ? '' : `${relative}/`;
    for (let at = this.lowerBound(prefix); at < order.length; at++) {
      const index = order[at]!;
      const own = this.paths[index]!;
      if (!own.startsWith(prefix)) return;
      if (own !== '' && visit(index) === false) return;
    }
  }

  /** Whether any entry lies below folder `relative`, or is that folder: the archive has it. */
  hasFolder(relative: string): boolean {
    const index = this.indexOf(relative);
    if (index >= 0) return this.type(index) === 'dir';
    let any = false;
    this.forEachUnder(relative, () => {
      any = true;
      return false;
    });
    return any;
  }

  /** Whether the archive stores folder entries (a jar, most zip tools) rather than implying folders. */
  storesFolders(): boolean {
    for (let i = 0; i < this.count; i++) if (this.typeCodes[i] === 1 && this.paths[i] !== '') return true;
    return false;
  }

  private lowerBound(key: string): number {
    const order = this.sorted();
    let low = 0;
    let high = order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.paths[order[mid]!]! < key) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

/**
 * The entries of a directory, with open's checks of names: a name that climbs
 * out, two entries at one path, a file where a folder must be, an encrypted
 * entry or an unknown method, a folder claiming data, entries sharing bytes.
 * What the workspace's folder cannot hold is noted, not refused: those entries
 * stay in the zip. Sizes and ratios are left to the moment an entry is read.
 */
export function lazyEntriesOf(
  directory: PackedDirectory,
  rules: FolderRules,
  refuse: Refuse = throwRefusal,
): { lazy: LazyEntries; facts: LazyFacts } {
  const { paths, codes } = placeEntries(directory, refuse);
  // Read in place, not parsed: a million entries must not become a million objects.
  const starts = new Float64Array(directory.count);
  const ends = new Float64Array(directory.count);
  for (let i = 0; i < directory.count; i++) {
    const uncompressed = codes[i] === 1 ? directory.uncompressedSize(i) : 0;
    if (uncompressed > 0)
      refuse(
        new ZipfsError(
          'ZIP_INVALID',
          `Folder entry ${quoted(directory.entry(i).name)} claims ${uncompressed} bytes of data; the archive is ` +
            `damaged, so it was not opened.`,
        ),
      );
    // As open: sync copies every entry as it is, and other readers refuse these on any entry.
    if (!plainlyReadable(directory.flags(i), directory.method(i))) {
      try {
        // An encrypted entry without its key stays in the zip (encryption.ts): refused only when read.
        const entry = directory.entry(i);
        if (!lockedEntry(entry)) assertReadable(entry);
      } catch (error) {
        if (!(error instanceof ZipfsError)) throw error;
        refuse(error);
      }
    }
    starts[i] = directory.localHeaderOffset(i);
    // The least room the entry takes: its local header with the central name, and its data.
    ends[i] = starts[i]! + 30 + directory.nameLength(i) + directory.compressedSize(i);
  }
  const lazy = new LazyEntries(directory, paths, codes);
  checkClashes(lazy, refuse);
  checkOverlaps(directory, starts, ends, paths, refuse);
  const unrepresentable = platformMisfits(lazy, rules);
  const facts: LazyFacts = {
    entries: directory.count,
    base_offset: directory.baseOffset,
    central_start: directory.centralStart,
    ...(unrepresentable.length > 0 ? { unrepresentable } : {}),
  };
  return { lazy: new LazyEntries(directory, paths, codes, unrepresentable), facts };
}

/**
 * A session's central.bin, read and parsed, once it is known to be the directory the session record describes
 * (lazy-integrity.ts): its length, CRC-32 and entry count. No path is placed: that is loadLazyEntries's.
 */
export function loadCentral(dir: string, record: SessionRecord): PackedDirectory {
  const facts = record.lazy!;
  // The file's own bytes, not copied again into an array of their own (67 MB at a million entries).
  const region: Uint8Array = fs.readFileSync(path.join(dir, CENTRAL_FILE));
  const fileProblem = centralFileProblem(region, facts);
  if (fileProblem) throw sessionDamaged(dir, fileProblem);
  let directory: PackedDirectory;
  try {
    directory = new PackedDirectory(region, {
      baseOffset: facts.base_offset,
      centralStart: facts.central_start,
      comment: '',
      commentBytes: new Uint8Array(0),
      zip64: false,
      nameEncoding: record.name_encoding,
    });
  } catch (error) {
    if (!(error instanceof ZipfsError)) throw error;
    throw sessionDamaged(dir, `its central.bin cannot be read as a central directory (${error.message})`);
  }
  const countProblem = centralCountProblem(
    directory.count,
    directory.centralEnd - directory.centralStart,
    region.length,
    facts,
  );
  if (countProblem) throw sessionDamaged(dir, countProblem);
  return directory;
}

/**
 * The lazy entries of a session: its central.bin (loadCentral, or the directory it gave already), each entry placed
 * and indexed again (each call of the CLI is a new process).
 */
export function loadLazyEntries(
  dir: string,
  record: SessionRecord,
  directory: PackedDirectory = loadCentral(dir, record),
): LazyEntries {
  const { paths, codes } = placeEntries(directory, () => {}); // refused at open: nothing here to refuse again
  releasePhaseGarbage(paths.length);
  return new LazyEntries(directory, paths, codes, record.lazy!.unrepresentable);
}

/** Entry `index`'s workspace path and type, as open places it: one entry, where an index would place them all. */
export function placeOf(directory: PackedDirectory, index: number): { path: string; type: ItemType } {
  const placed = { paths: [''], codes: new Uint8Array(1) };
  placeInto(directory, index, placed, 0, () => {});
  return { path: placed.paths[0]!, type: TYPES[placed.codes[0]!]! };
}

/**
 * Each entry's workspace path and type code, as open places them; a name
 * `refuse` does not stop gets a placeholder path no real path equals.
 */
function placeEntries(directory: PackedDirectory, refuse: Refuse): { paths: string[]; codes: Uint8Array } {
  const placed = { paths: new Array<string>(directory.count), codes: new Uint8Array(directory.count) };
  for (let i = 0; i < directory.count; i++) placeInto(directory, i, placed, i, refuse);
  return placed;
}

/** Entry `index` placed into `placed` at `at`: in arrays, not an object per entry (a million entries). */
function placeInto(
  directory: PackedDirectory,
  index: number,
  placed: { paths: string[]; codes: Uint8Array },
  at: number,
  refuse: Refuse,
): void {
  const { paths, codes } = placed;
  // Most names are plain ASCII paths: placed straight from the record, without parsing it into an object.
  if (plainPath(directory, index)) {
    const plain = directory.latin1(
      directory.nameStart(index),
      directory.nameStart(index) + directory.nameLength(index),
    );
    const dir = plain.endsWith('/');
    paths[at] = dir ? plain.slice(0, -1) : plain;
    codes[at] = dir ? 1 : directory.isSymlink(index) ? 2 : 0;
    return;
  }
  const entry = directory.entry(index);
  let place: { path: string; isDirectory: boolean };
  try {
    place = entryPath(entry.name);
  } catch (error) {
    if (!(error instanceof ZipfsError)) throw error;
    refuse(error);
    place = { path: `\0${index}`, isDirectory: false };
  }
  paths[at] = place.path;
  const dir = place.isDirectory || entry.isDirectory;
  codes[at] = dir ? 1 : entry.isSymlink ? 2 : 0;
}
