import { ZipfsError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { assertReadable, type CentralDirectory, type ZipEntry } from '../zip/index.ts';
import { LOCAL_HEADER_LENGTH } from '../zip/constants.ts';
import { quoted } from '../format/quote-name.ts';
import { entryPath } from './entry-paths.ts';
import { assertNoCaseCollisions, assertWindowsNames } from './platform-names.ts';

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
 * declared sizes break a limit. Data-level checks follow during extraction.
 */
/** What the workspace's folder can hold (platform-names.ts): case folded, Windows names. */
export interface FolderRules {
  caseInsensitive?: boolean;
  windowsNames?: boolean;
}

export function planExtraction(directory: CentralDirectory, limits: Limits, rules: FolderRules = {}): ExtractionPlan {
  const { entries } = directory;
  if (entries.length > limits.maxEntries) {
    throw bomb(`The archive has ${entries.length} entries, over the limit of ${limits.maxEntries}. If it is trusted, raise ZIPFS_MAX_ENTRIES and open it again.`);
  }

  const items: PlannedItem[] = [];
  const byPath = new Map<string, PlannedItem>();
  for (const entry of entries) {
    const { path, isDirectory } = entryPath(entry.name);
    const type: ItemType = isDirectory || entry.isDirectory ? 'dir' : entry.isSymlink ? 'symlink' : 'file';
    const item = { entry, path, type };
    const clash = byPath.get(path);
    if (clash) {
      const what = clash.type === 'dir' && type === 'dir' ? 'the same folder' : clash.type === 'dir' || type === 'dir' ? 'a file and a folder at the same path' : 'the same file';
      throw new ZipfsError('ZIP_INVALID', `Entries ${quoted(clash.entry.name)} and ${quoted(entry.name)} are ${what} (${quoted(path)}); one would silently replace the other, so the archive was not opened.`);
    }
    byPath.set(path, item);
    items.push(item);
  }

  const directories = foldersOf(items);
  if (rules.windowsNames) assertWindowsNames(items);
  if (rules.caseInsensitive) assertNoCaseCollisions(items, directories);
  for (const dir of directories) {
    const holder = byPath.get(dir);
    if (holder && holder.type !== 'dir') {
      const child = items.find((item) => item.path.startsWith(`${dir}/`))!;
      throw new ZipfsError('ZIP_INVALID', `Entry ${quoted(holder.entry.name)} is a file, but ${quoted(child.entry.name)} needs it to be a folder; the archive cannot be laid out as files, so it was not opened.`);
    }
  }

  let totalBytes = 0;
  let totalCompressed = 0;
  for (const item of items) {
    assertReadable(item.entry); // folders too: sync copies them as they are, and other readers refuse these flags on any entry
    if (item.type === 'dir') {
      // A folder holds no data: one that claims some is damaged, and would slip past the size limits below.
      if (item.entry.uncompressedSize > 0) {
        throw new ZipfsError('ZIP_INVALID', `Folder entry ${quoted(item.entry.name)} claims ${item.entry.uncompressedSize} bytes of data; the archive is damaged, so it was not opened.`);
      }
      continue;
    }
    const { uncompressedSize: size, compressedSize: packed } = item.entry;
    totalBytes += size;
    totalCompressed += packed;
    if (size > limits.ratioFloorBytes && size / Math.max(packed, 1) > limits.maxEntryRatio) {
      throw bomb(`Entry ${quoted(item.entry.name)} expands ${Math.round(size / Math.max(packed, 1))}:1 (${size} bytes from ${packed}), over the per-entry limit of ${limits.maxEntryRatio}:1. If it is trusted, raise ZIPFS_MAX_ENTRY_RATIO.`);
    }
  }
  if (totalBytes > limits.maxExtractedBytes) {
    throw bomb(`The archive expands to ${totalBytes} bytes, over the limit of ${limits.maxExtractedBytes}. If it is trusted, raise ZIPFS_MAX_EXTRACTED_BYTES.`);
  }
  if (totalBytes > limits.ratioFloorBytes && totalBytes / Math.max(totalCompressed, 1) > limits.maxRatio) {
    throw bomb(`The archive expands ${Math.round(totalBytes / Math.max(totalCompressed, 1))}:1 overall (${totalBytes} bytes from ${totalCompressed}), over the limit of ${limits.maxRatio}:1. If it is trusted, raise ZIPFS_MAX_RATIO.`);
  }
  assertNoOverlap(entries);

  return {
    items,
    directories: [...directories].sort(),
    totalBytes,
    fileCount: items.filter((i) => i.type !== 'dir').length,
    dirCount: directories.size,
  };
}

/**
 * Entries whose data overlap (one compressed kernel referenced by many
 * entries) are the trick behind non-recursive zip bombs. Each entry needs at
 * least a fixed header plus its compressed bytes before the next one starts;
 * the exact bound, with the local name and extra lengths, is checked as the
 * data is read.
 */
function assertNoOverlap(entries: ZipEntry[]): void {
  const ordered = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    const next = ordered[i]!;
    if (previous.localHeaderOffset + LOCAL_HEADER_LENGTH + previous.compressedSize > next.localHeaderOffset) {
      throw bomb(`Entries ${quoted(previous.name)} and ${quoted(next.name)} share compressed data (overlapping entries), a zip-bomb construction; the archive was refused.`);
    }
  }
}
