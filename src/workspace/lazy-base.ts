/**
 * A lazy session's base: every entry of its zip (central.bin, loaded when first
 * asked for), of which the manifest lists those extracted or deleted. The scan
 * compares those, and the entries at a path the folder has (a tool wrote there
 * without extracting, or made the folders on the way): the rest are untouched,
 * their bytes the zip's. The index is loaded only when a question needs it, and
 * let go before a sync writes.
 */
import { ZipfsError } from '../base/errors.ts';
import { param, invocation } from '../base/message-marks.ts';
import { foldersOf, type ItemType } from '../rules/item-type.ts';
import { countEntries } from '../session/entry-count.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import { centralFileFacts } from '../session/lazy-integrity.ts';
import { centralAt, forgetLazyEntries, lazyEntriesAt, loadedLazyEntries } from '../session/lazy-session.ts';
import { FEW_PATHS, findPlaced, forEachNear, storesFolders } from '../session/lazy-lookup.ts';
import { entryRecord, type EntryRecord, type SessionRecord } from '../session/manifest.ts';
import type { Manifest } from '../session/read-manifest.ts';
import type { PackedDirectory } from '../zip/index.ts';
import type { Base, OnDisk, WrittenChecks } from './base.ts';
import { lazyReopenFacts } from './reopen-check.ts';

const NONE: ReadonlySet<number> = new Set();

export class LazyBase implements Base {
  readonly limitsOn = 'extracted';
  readonly forceable = false;

  constructor(
    private readonly manifest: Manifest,
    private readonly dir: string,
  ) {}

  get record(): SessionRecord {
    return this.manifest.session;
  }

  get count(): number {
    return this.manifest.session.lazy!.entries;
  }

  /** Every entry already checked once (a sync read them all), or only those extracted. */
  get copiesChecked(): 'all' | 'extracted' {
    return this.manifest.session.lazy!.data_checked === true ? 'all' : 'extracted';
  }

  /** The directory: through the manifest's loader, which checks its lines against it (lazy-integrity.ts). */
  private index(): LazyEntries {
    return this.manifest.lazy?.() ?? lazyEntriesAt(this.dir, this.manifest.session);
  }

  compared(onDisk: ReadonlyMap<string, { kind: string }>): EntryRecord[] {
    const { entries } = this.manifest;
    const known = new Set(entries.map((entry) => entry.path));
    // The folders on the way to the listed entries, which extracting them made: the base has no file or link there
    // (open refused one where an entry needs a folder), at most a folder entry, and such an entry on disk as a folder
    // is unchanged, as untouched entries are. Looked up, each made status and sync load every entry's path.
    const ways = foldersOf(entries);
    const unknown = new Set<string>();
    this.waysOnDisk = [];
    for (const [relative, observed] of onDisk) {
      if (known.has(relative)) continue;
      if (observed.kind === 'dir' && ways.has(relative)) this.waysOnDisk.push(relative);
      else unknown.add(relative);
    }
    if (unknown.size === 0) return entries;
    const tracked = new Set(entries.map((entry) => entry.index));
    const found = this.lookUp(unknown).filter((record) => !tracked.has(record.index));
    return found.length === 0 ? entries : [...entries, ...found].sort((a, b) => a.index - b.index);
  }

  /**
   * The base's entries at these paths: from the index when a warm server holds it or there are many, else in one
   * pass over the directory (lazy-lookup.ts), which places no path but theirs.
   */
  private lookUp(paths: ReadonlySet<string>): EntryRecord[] {
    const directory = paths.size <= FEW_PATHS ? this.forOnePass() : undefined;
    if (!directory) {
      const lazy = this.index(); // the lines checked against it
      return [...paths].map((relative) => lazy.indexOf(relative)).flatMap((i) => (i >= 0 ? [lazy.record(i)] : []));
    }
    return [...findPlaced(directory, paths)].map(([relative, { index, type }]) =>
      entryRecord(directory.entry(index), relative, type),
    );
  }

  /** The folders on disk the last compare left out as on the way to listed entries (onDisk counts them in). */
  private waysOnDisk: string[] = [];

  /** Passes over the directory made instead of loading the index: past FEW_PATHS of them, its sorting pays. */
  private passes = 0;

  /**
   * The directory, checked with the manifest's lines, for one more pass over it (lazy-lookup.ts); undefined when the
   * index is the better way: a warm server holds it, or enough passes were made.
   */
  private forOnePass(): PackedDirectory | undefined {
    if (this.passes++ >= FEW_PATHS || loadedLazyEntries(this.dir, this.manifest.session)) return undefined;
    return this.manifest.central?.() ?? centralAt(this.dir, this.manifest.session);
  }

  untouchedStoreFolders(): boolean {
    const directory = this.forOnePass();
    return directory ? storesFolders(directory) : this.index().storesFolders();
  }

  untouchedHaveFolder(dir: string): boolean {
    const directory = this.forOnePass();
    if (!directory) return this.index().hasFolder(dir);
    let has = false;
    forEachNear(directory, [dir], NONE, (path, type) => {
      has = (path === dir && type === 'dir') || path.startsWith(`${dir}/`);
      return !has;
    });
    return has;
  }

  /** Every entry, those the manifest lists as it has them: a million records at a million entries. */
  whole(): EntryRecord[] {
    const lazy = this.index();
    const listed = new Map(this.manifest.entries.map((entry) => [entry.index, entry]));
    const entries = new Array<EntryRecord>(lazy.count);
    for (let i = 0; i < lazy.count; i++) entries[i] = listed.get(i) ?? lazy.record(i);
    return entries;
  }

  onDisk(compared: readonly EntryRecord[]): OnDisk {
    const indexes = new Set(compared.map((entry) => entry.index));
    const paths = new Set(compared.map((entry) => entry.path));
    // The folder entries on the way to those, which the compare left out, are on disk too: a merge takes the zip's
    // side there (a folder the zip made a file). A merge holds every entry anyway (whole).
    const lazy = this.waysOnDisk.length > 0 ? this.index() : undefined;
    for (const relative of this.waysOnDisk) {
      const index = lazy!.indexOf(relative);
      if (index < 0 || indexes.has(index)) continue;
      indexes.add(index);
      paths.add(relative);
    }
    return { indexes, paths };
  }

  forEachUntouched(
    compared: readonly EntryRecord[],
    visit: (path: string, type: ItemType) => void,
    near?: readonly string[],
  ): void {
    const listed = new Set(compared.map((entry) => entry.index));
    // A few paths' neighbours: one pass over the directory, no index of every path (lazy-lookup.ts).
    const directory = near && near.length <= FEW_PATHS ? this.forOnePass() : undefined;
    if (directory) {
      forEachNear(directory, near!, listed, visit);
      return;
    }
    const lazy = lazyEntriesAt(this.dir, this.manifest.session);
    for (let i = 0; i < lazy.count; i++) if (!listed.has(i)) visit(lazy.paths[i]!, lazy.type(i));
  }

  /** The directory and the manifest's lines against each other: no index of every path, which a sync may not need. */
  verify(): void {
    this.manifest.central?.();
  }

  release(): void {
    this.manifest.lazy = undefined;
    this.manifest.central = undefined;
    forgetLazyEntries();
  }

  assertForceable(target: string): void {
    // Forced, the folder replaces the zip, but the bytes of the entries never extracted were only in the base.
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${target} changed since this lazy session's base, whose entries it never extracted it would have ` +
        `to write as they were; a forced sync of a lazy session cannot. Nothing was written. Sync with ` +
        `${param('merge')} to keep both sides' changes, or extract everything (${invocation('extract')}) and force ` +
        `then.`,
    );
  }

  /**
   * The new archive put through a lazy open's checks (the session reopens as it was opened);
   * completes the next session record from it, and returns the directory's bytes for the next central.bin.
   */
  checkWritten(directory: PackedDirectory, next: SessionRecord, { rules, namesKept }: WrittenChecks): Uint8Array {
    const facts = lazyReopenFacts(directory, rules);
    // The base's names, as many as it had: the same names, so the same files and folders, counted at open or the
    // last sync (a pass over a million names otherwise).
    const same = namesKept === true && directory.count === this.count;
    const { files, folders } = same
      ? { files: this.record.file_count, folders: this.record.dir_count }
      : countEntries(directory);
    const central = directory.region.subarray(0, directory.centralEnd - directory.centralStart);
    // Every entry of the new archive was written by this sync or checked as it was copied (copy-check.ts).
    Object.assign(next, {
      lazy: { ...facts, ...centralFileFacts(central), data_checked: true },
      file_count: files,
      dir_count: folders,
    });
    return central;
  }
}
