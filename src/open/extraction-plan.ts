import { ZipfsError, throwRefusal, type Refuse } from '../base/errors.ts';
import { DeclaredSizes, tooManyEntries } from '../rules/declared-sizes.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import { foldersOf, type ItemType } from '../rules/item-type.ts';
import type { Limits } from '../rules/limits.ts';
import { assertReadable, lockedEntry, type CentralDirectory, type ZipEntry } from '../zip/index.ts';
import { quoted } from '../format/quote-name.ts';
import { assertNoCaseCollisions, assertWindowsNames } from '../rules/platform-names.ts';
import { entryPath, type EntryPath } from '../rules/entry-paths.ts';

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
export function planExtraction(
  directory: CentralDirectory,
  limits: Limits,
  refuse: Refuse = throwRefusal,
  rules: FolderRules = {},
): ExtractionPlan {
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
      const what =
        clash.type === 'dir' && type === 'dir'
          ? 'the same folder'
          : clash.type === 'dir' || type === 'dir'
            ? 'a file and a folder at the same path'
            : 'the same file';
      refuse(
        new ZipfsError(
          'ZIP_INVALID',
          `Entries ${quoted(clash.entry.name)} and ${quoted(entry.name)} are ${what} (${quoted(place.path)}); one ` +
            `would silently replace the other, so the archive was not opened.`,
        ),
      );
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
      refuse(
        new ZipfsError(
          'ZIP_INVALID',
          `Entry ${quoted(holder.entry.name)} is a file, but ${quoted(child.entry.name)} needs it to be a folder; ` +
            `the archive cannot be laid out as files, so it was not opened.`,
        ),
      );
    }
  }

  // Every entry, placed or not (a refused name is no reason to skip its sizes): by its planned type, else its own.
  const typeOf = new Map(items.map((item) => [item.entry, item.type]));
  const sizes = new DeclaredSizes(limits, refuse, (at) => entries[at]!.name);
  for (let at = 0; at < entries.length; at++) {
    const entry = entries[at]!;
    const type = typeOf.get(entry) ?? (entry.isDirectory ? 'dir' : 'file');
    try {
      // folders too: sync copies them as they are, and other readers refuse these flags on any entry. An encrypted
      // entry without its key is no refusal: it stays in the zip (open goes lazy for it, open-archive.ts).
      if (!lockedEntry(entry)) assertReadable(entry);
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
      refuse(error);
    }
    if (type === 'dir') {
      // A folder holds no data: one that claims some is damaged, and would slip past the size limits below.
      if (entry.uncompressedSize > 0) {
        refuse(
          new ZipfsError(
            'ZIP_INVALID',
            `Folder entry ${quoted(entry.name)} claims ${entry.uncompressedSize} bytes of data; the archive is ` +
              `damaged, so it was not opened.`,
          ),
        );
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
