/**
 * The workspace seam (DESIGN.md, "The workspace seam"): how commands, status,
 * diff and sync see a session's files, whatever the kind of session. An eager
 * session has every entry in its folder (eager-workspace.ts); a lazy one keeps
 * entries in the zip until a tool needs them (lazy-workspace.ts). Nothing above
 * this interface asks which kind it has: a new kind of session (an archive read
 * from elsewhere, an encrypted one) is a third implementation, not a branch.
 * Modelled on Go's io/fs.FS: one interface over a folder and an archive.
 */
import type { Beneath } from '../files/beneath.ts';
import type { WorkspacePath } from '../files/safe-path.ts';
import type { ItemType } from '../rules/item-type.ts';
import type { Limits } from '../rules/limits.ts';
import type { GrepZipEntry } from '../search/grep-types.ts';
import type { Session } from '../session/session-store.ts';
import type { EncryptionKind } from '../zip/index.ts';
import type { Base } from './base.ts';

/** An item only in the archive (not on disk), with the size and time the archive records. */
export interface ArchivedItem {
  type: ItemType;
  size: number;
  mtime: Date;
  /** The entry, for a file or a stored folder; absent for a folder only implied by paths below it. */
  index?: number;
  /** Set on an encrypted entry zipfs has no key for: it stays in the zip, listed, and a read of it is refused. */
  encrypted?: EncryptionKind;
}

/** A path as ls, tree, read and grep take it: on disk, or else only in the archive. */
export interface Seen {
  relative: string;
  disk?: WorkspacePath;
  archived?: ArchivedItem;
}

/** What a change that needs entries on disk may cost, and who may stop it. */
export interface ChangeOptions {
  /** ZIPFS_HOME: the workspaces' room is checked before anything is written. */
  home: string;
  limits: Limits;
  signal?: AbortSignal;
}

export interface ExtractAnswer {
  extracted: number;
  bytes: number;
  not_extracted: number;
}

export interface Workspace {
  readonly session: Session;
  /** The folder other tools see and change. */
  readonly root: string;

  /** Stat: the item at `input`, on disk or only in the archive; PATH_NOT_FOUND when in neither. */
  stat(beneath: Beneath, input: string): Seen;
  /** List: the items directly in folder `relative` ('' the root) that are only in the archive, by name. */
  archivedChildren(relative: string): Map<string, ArchivedItem>;
  /**
   * Read: a file holding an archived item's bytes, checked as open checks what it extracts (reads by page, lines or
   * bytes work on a file).
   */
  fileFor(item: ArchivedItem, limits: Limits): Promise<string>;
  /**
   * The grep items: runs `search` with the files at and below `start` that are only in the archive (none when all are
   * on disk).
   */
  withGrepItems<T>(
    start: string,
    accept: (relative: string) => boolean,
    limits: Limits,
    search: (items: GrepZipEntry[] | undefined) => Promise<T>,
  ): Promise<T>;
  /**
   * Prepare a change: what a change at each of `inputs` needs on disk (a file, or everything in a folder) is put there;
   * the caller holds the lock.
   */
  prepareChange(inputs: string[], options: ChangeOptions): Promise<void>;
  /** Mkdir: the folder `input` sits in, made on disk when it exists only in the archive. */
  prepareFolderOf(input: string): void;
  /**
   * Remove: the entries only in the archive at each of `inputs` (and below, with `recursive`), deleted at once; returns
   * how many. The caller removes what is on disk.
   */
  removeArchived(inputs: string | readonly string[], recursive: boolean): number;
  /** Extract: the entries `paths` name (every one when absent) put in the folder; the caller holds the lock. */
  extract(paths: readonly string[] | undefined, options: ChangeOptions): Promise<ExtractAnswer>;
  /** How many entries are only in the archive; undefined for a kind that keeps none there. */
  notExtracted(): number | undefined;
  /**
   * The base the folder is compared with (status, diff, sync): every entry, whatever the kind; `stamp` asks for the
   * manifest's stamp too, where the base has one (Base.stamp).
   */
  base(options?: { stamp?: boolean }): Base;
}
