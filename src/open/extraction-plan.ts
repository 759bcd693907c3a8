import { ZipfsError, throwRefusal, type Refuse } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { assertReadable, type CentralDirectory, type ZipEntry } from '../zip/index.ts';
import { quoted } from '../format/quote-name.ts';
import { assertNoCaseCollisions, assertWindowsNames } from './platform-names.ts';
import { entryPath, type EntryPath } from './entry-paths.ts';

export type ItemType = 'file' | 'dir' | 'symlink';

export interface PlannedItem {
  entry: ZipEntry;
  path: string;
  type: ItemType;
}

export interface ExtractionPlan {
  /** One item per archive entry, in central-directory order. */
  items: PlannedItem[];
  /** Every folder to create, explicit or implied by a file's path, parents first. */
  directories: string[];
  /** Declared uncompressed bytes of files and symlinks. */
  totalBytes: number;
  fileCount: number;
  dirCount: number;
}

function bomb(message: string): ZipfsError {
  return new ZipfsError('ZIP_BOMB_DETECTED', message);
}

/** More entries than open takes. */
export function tooManyEntries(count: number, limits: Limits): ZipfsError {
  return bomb(`The archive has ${count} entries, over the limit of ${limits.maxEntries}. If it is trusted, raise ZIPFS_MAX_ENTRIES and open it again.`);
}

/**
 * The declared sizes of an archive's files against open's limits: each entry's ratio as it is
 * added, the total and the overall ratio at the end. Entries are given by number, their name
 * asked for only to refuse one, so a packed directory of a million entries makes no objects.
 */
export class DeclaredSizes {
  private totalBytes = 0;
  private totalCompressed = 0;

  constructor(
    private readonly limits: Limits,
    private readonly refuse: Refuse,
    private readonly nameOf: (index: number) => string,
  ) {}

  add(index: number, size: number, packed: number): void {
    this.totalBytes += size;
    this.totalCompressed += packed;
    const { limits } = this;
    if (size > limits.ratioFloorBytes && size / Math.max(packed, 1) > limits.maxEntryRatio) {
      this.refuse(bomb(`Entry ${quoted(this.nameOf(index))} expands ${Math.round(size / Math.max(packed, 1))}:1 (${size} bytes from ${packed}), over the per-entry limit of ${limits.maxEntryRatio}:1. If it is trusted, raise ZIPFS_MAX_ENTRY_RATIO.`));
    }
  }

  /** The total, once checked. */
  finish(): number {
    const { limits, totalBytes, totalCompressed } = this;
    if (totalBytes > limits.maxExtractedBytes) {
      this.refuse(bomb(`The archive expands to ${totalBytes} bytes, over the limit of ${limits.maxExtractedBytes}. If it is trusted, raise ZIPFS_MAX_EXTRACTED_BYTES.`));
    }
    if (totalBytes > limits.ratioFloorBytes && totalBytes / Math.max(totalCompressed, 1) > limits.maxRatio) {
      this.refuse(bomb(`The archive expands ${Math.round(totalBytes / Math.max(totalCompressed, 1))}:1 overall (${totalBytes} bytes from ${totalCompressed}), over the limit of ${limits.maxRatio}:1. If it is trusted, raise ZIPFS_MAX_RATIO.`));
    }
    return totalBytes;
  }
}

/** Every folder a set of items needs: the folders they are, and the parents of every path. */
export function foldersOf(items: readonly { path: string; type: ItemType }[]): Set<string> {
  const folders = new Set<string>();
  for (const item of items) {
    if (item.type === 'dir' && item.path !== '') folders.add(item.path); // '': a root entry ("./"), the workspace itself
    for (let slash = item.path.indexOf('/'); slash >= 0; slash = item.path.indexOf('/', slash + 1)) folders.add(item.path.slice(0, slash));
  }
  return folders;
}

/**
 * Decides, from the central directory alone, what an open will write, and
 * refuses the archive before a single byte is extracted when any name is
 * unsafe, two entries claim one path, an entry cannot be decoded, or the
 * declared sizes break a limit. Where the entries lie in the file (overlaps
 * included) is layout.ts's check, which open runs next (archive-checks.ts);
 * data-level checks follow during extraction.
 *
 * Each refusal goes to `refuse`: open's throws the first; inspect's collects
 * them and the plan goes on past each, so one pass names every entry concerned.
 */
/** What the workspace's folder can hold (platform-names.ts): case folded, Windows names. */
export interface FolderRules {
  caseInsensitive?: boolean;
  windowsNames?: boolean;
}

export function planExtraction(directory: CentralDirectory, limits: Limits, refuse: Refuse = throwRefusal, rules: FolderRules = {}): ExtractionPlan {
  const { entries } = directory;
  if (entries.length > limits.maxEntries) refuse(tooManyEntries(entries.length, limits));

  const items: PlannedItem[] = [];
  const byPath = new Map<string, PlannedItem>();
  for (const entry of entries) {
    let place: EntryPath;
    try {
      place = entryPath(entry.name);
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
      refuse(error);
      continue; // no place in the workspace: its other checks follow below, as a bare entry
    }
    const type: ItemType = place.isDirectory || entry.isDirectory ? 'dir' : entry.isSymlink ? 'symlink' : 'file';
    const item = { entry, path: place.path, type };
    const clash = byPath.get(place.path);
    if (clash) {
      const what = clash.type === 'dir' && type === 'dir' ? 'the same folder' : clash.type === 'dir' || type === 'dir' ? 'a file and a folder at the same path' : 'the same file';
      refuse(new ZipfsError('ZIP_INVALID', `Entries ${quoted(clash.entry.name)} and ${quoted(entry.name)} are ${what} (${quoted(place.path)}); one would silently replace the other, so the archive was not opened.`));
      continue;
    }
    byPath.set(place.path, item);
    items.push(item);
  }

  const directories = foldersOf(items);
  if (rules.windowsNames) assertWindowsNames(items, refuse);
  if (rules.caseInsensitive) assertNoCaseCollisions(items, directories, refuse);
  for (const dir of directories) {
    const holder = byPath.get(dir);
    if (holder && holder.type !== 'dir') {
      const child = items.find((item) => item.path.startsWith(`${dir}/`))!;
      refuse(new ZipfsError('ZIP_INVALID', `Entry ${quoted(holder.entry.name)} is a file, but ${quoted(child.entry.name)} needs it to be a folder; the archive cannot be laid out as files, so it was not opened.`));
    }
  }

  // Every entry, placed or not (a refused name is no reason to skip its sizes): by its planned type, else its own.
  const typeOf = new Map(items.map((item) => [item.entry, item.type]));
  const sizes = new DeclaredSizes(limits, refuse, (at) => entries[at]!.name);
  for (let at = 0; at < entries.length; at++) {
    const entry = entries[at]!;
    const type = typeOf.get(entry) ?? (entry.isDirectory ? 'dir' : 'file');
    try {
      assertReadable(entry); // folders too: sync copies them as they are, and other readers refuse these flags on any entry
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
      refuse(error);
    }
    if (type === 'dir') {
      // A folder holds no data: one that claims some is damaged, and would slip past the size limits below.
      if (entry.uncompressedSize > 0) {
        refuse(new ZipfsError('ZIP_INVALID', `Folder entry ${quoted(entry.name)} claims ${entry.uncompressedSize} bytes of data; the archive is damaged, so it was not opened.`));
      }
      continue;
    }
    sizes.add(at, entry.uncompressedSize, entry.compressedSize);
  }
  const totalBytes = sizes.finish();

  return {
    items,
    directories: [...directories].sort(),
    totalBytes,
    fileCount: items.filter((i) => i.type !== 'dir').length,
    dirCount: directories.size,
  };
}
