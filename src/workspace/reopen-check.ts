/**
 * Sync never writes an archive that zipfs open would refuse: a sync that
 * reports success and leaves a zip its own tool will not open again (a sparse
 * 4.6 GB file compresses past the ratio limit; 100,001 files pass the entry
 * limit) is a trap. The limits are open's, from the same environment
 * variables, so raising one lets both the sync and later opens through.
 * Here, the checks of the written archive's directory (ratios, names, layout),
 * with open's own planner, before the rename; the counts and sizes are checked
 * from the workspace's stats before anything is written (sync/open-limits.ts).
 */
import { ZipfsError } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import { DeclaredSizes, tooManyEntries } from '../rules/declared-sizes.ts';
import { type FolderRules } from '../rules/folder-rules.ts';
import { throwRefusal } from '../base/errors.ts';
import { lazyEntriesOf } from '../session/lazy-entries.ts';
import type { PackedDirectory } from '../zip/index.ts';
import { type LazyFacts } from '../session/manifest.ts';

export const LEFT = 'The zip was left as it was.';

/**
 * The written archive through open's checks: what open would refuse, the sync refuses, before the
 * rename. From the packed directory the read-back check returns (a sync of 100,000 entries parsed
 * them into objects twice over here): the names, clashes and methods as a lazy open checks them,
 * then the entry count and the declared sizes as an eager open does.
 */
export function assertReopenable(directory: PackedDirectory, limits: Limits, namesKept = false): void {
  try {
    if (directory.count > limits.maxEntries) throw tooManyEntries(directory.count, limits);
    // Names open accepted in the base need no second pass (a path index of every entry: 4-5 ms at 2,500 entries);
    // a folder is then told by its name's trailing slash, as the record itself says (central-record.ts).
    const isFolder = namesKept ? (i: number) => endsWithSlash(directory, i) : folderTest(directory);
    const sizes = new DeclaredSizes(limits, throwRefusal, (index) => directory.entry(index).name);
    for (let i = 0; i < directory.count; i++)
      if (!isFolder(i)) sizes.add(i, directory.uncompressedSize(i), directory.compressedSize(i));
    sizes.finish();
  } catch (error) {
    refusedByOpen(error, ' (Limits apply to this sync and to later opens.)');
  }
}

/** Open's placing of every name (lazy-entries.ts): refuses what open refuses, and tells folders as open does. */
function folderTest(directory: PackedDirectory): (index: number) => boolean {
  const { lazy } = lazyEntriesOf(directory, {});
  return (index) => lazy.type(index) === 'dir';
}

function endsWithSlash(directory: PackedDirectory, index: number): boolean {
  const length = directory.nameLength(index);
  return length > 0 && directory.region[directory.nameStart(index) + length - 1] === 0x2f;
}

/**
 * A lazy session's new archive as a lazy open would take it, and the facts its next session keeps.
 * Where the folder folds case or takes Windows names, which entries it cannot hold is worked out
 * again. Elsewhere the names were checked already (the copied ones at open, the new ones by the
 * scan, unwritableName; a new path is never an entry's, as the scan takes that for the entry), and
 * only the directory's place is left to note: no index of every path.
 */
export function lazyReopenFacts(directory: PackedDirectory, rules: FolderRules): LazyFacts {
  if (!rules.caseInsensitive && !rules.windowsNames)
    return { entries: directory.count, base_offset: directory.baseOffset, central_start: directory.centralStart };
  try {
    return lazyEntriesOf(directory, rules).facts;
  } catch (error) {
    refusedByOpen(error, '');
  }
}

/** Open's refusal of the archive a sync wrote, said as the sync's: nothing replaced the zip. */
function refusedByOpen(error: unknown, note: string): never {
  if (!(error instanceof ZipfsError)) throw error;
  throw new ZipfsError(
    error.code,
    `Sync stopped before replacing the zip, because zipfs open would refuse the new archive: ` +
      `${error.message.replace(/;? ?the archive was (not opened|refused)\.?$/, '.')}${note} ${LEFT}`,
  );
}
