/**
 * The base a workspace is compared with: every entry of the archive the session
 * opened or last synced, by index and path, whatever the kind of session. The
 * scan (sync/workspace-diff.ts) compares the folder with the entries that may
 * differ (`compared`); the others are untouched: never extracted, their bytes
 * the zip's, which sync copies raw without scanning. Nothing here changes the
 * manifest: the base is read, never rewritten in memory.
 */
import type { ItemType } from '../rules/item-type.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import type { Limits } from '../rules/limits.ts';
import type { EntryRecord, SessionRecord } from '../session/manifest.ts';
import type { ManifestStamp } from '../session/stat-index.ts';
import type { PackedDirectory } from '../zip/index.ts';

/** What of the base is on disk, by index and path. */
export interface OnDisk {
  indexes: Set<number>;
  paths: Set<string>;
}

/** What the written archive is held to: open's limits, and the rules of the session's folder. */
export interface WrittenChecks {
  limits: Limits;
  rules: FolderRules;
  /**
   * Every name the archive holds is one of the base's, as open accepted them (a plain sync that adds and renames
   * nothing): the names need no second look, only the sizes and counts.
   */
  namesKept?: boolean;
}

export interface Base {
  readonly record: SessionRecord;
  /** The manifest's stamp where its entries are all the base's (an eager session): what a stat index of it names. */
  readonly stamp?: ManifestStamp;
  /** How many entries the base has: every one. */
  readonly count: number;
  /**
   * The entries the scan compares with the folder, in index order: every entry where all are on
   * disk; else those listed, and those at a path the folder has (`onDisk`: what the scan found),
   * but for a folder on the way to a listed one (a folder entry there is unchanged, as if untouched).
   */
  compared(onDisk: ReadonlyMap<string, { kind: string }>): EntryRecord[];
  /** Whether the entries not compared include stored folders (the archive's convention for new folders). */
  untouchedStoreFolders(): boolean;
  /** Whether folder `dir` is one the untouched entries imply or store. */
  untouchedHaveFolder(dir: string): boolean;
  /** Every entry as a record: a million at a million entries, so only for a merge or a conflict's description. */
  whole(): EntryRecord[];
  /** What of the base is on disk (the rest is only in the zip); undefined when every entry is. */
  onDisk(compared: readonly EntryRecord[]): OnDisk | undefined;
  /**
   * Each entry not in `compared` (sync keeps it as it is); with `near`, those at, on the way to or below one of these
   * paths at least (a new path's clashes), the others maybe left out.
   */
  forEachUntouched(
    compared: readonly EntryRecord[],
    visit: (path: string, type: ItemType) => void,
    near?: readonly string[],
  ): void;
  /** Checks what the base is read from before a sync trusts it (a lazy session's directory against its manifest). */
  verify(): void;
  /** Lets go of what the scan loaded (a sync's writing must not hold a million-entry index too). */
  release(): void;
  /** Where open's limits apply: to the whole archive, or to what the session extracts. */
  readonly limitsOn: 'archive' | 'extracted';
  /** Which raw copies from the base's zip were checked already (sync/copy-check.ts). */
  readonly copiesChecked: 'all' | 'extracted';
  /**
   * Whether a forced sync may replace a zip another writer changed with the folder (none of the base's bytes are only
   * in the zip).
   */
  readonly forceable: boolean;
  /** Refuses a forced sync over the changed zip `target` where it cannot write the base's entries. */
  assertForceable(target: string): void;
  /**
   * The written archive through the checks its next open makes; completes `next` (the next session
   * record) from it, and returns the bytes the session keeps beside its manifest (central.bin), if any.
   */
  checkWritten(directory: PackedDirectory, next: SessionRecord, checks: WrittenChecks): Uint8Array | undefined;
}
