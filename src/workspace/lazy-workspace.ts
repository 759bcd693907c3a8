/**
 * A lazy session's workspace: its folder holds what was extracted (at open with
 * only, by extract, or before a change), and the other entries stay in the zip,
 * where stat, list, read and grep reach them (lazy-view.ts, lazy-reader.ts). A
 * change extracts what it needs first, and nowhere else is an entry extracted;
 * what is on disk wins over the zip, as a checked-out file wins over the index
 * in a sparse checkout.
 */
import type { Beneath } from '../files/beneath.ts';
import type { Limits } from '../rules/limits.ts';
import type { GrepZipEntry } from '../search/grep-types.ts';
import { lazyEntries, notExtractedCount } from '../session/lazy-session.ts';
import { readManifest } from '../session/read-manifest.ts';
import type { Session } from '../session/session-store.ts';
import type { Base } from './base.ts';
import { extractEntries } from './extract-entries.ts';
import { deleteFromZipOnly, extractForChange, makeZipOnlyFolders } from './lazy-changes.ts';
import { LazyBase } from './lazy-base.ts';
import { entryFileForRead, withLazyReader } from './lazy-reader.ts';
import { lazyView, resolveSeen, type LazyView } from './lazy-view.ts';
import { matchEntries, unlockedIndexes } from './match-entries.ts';
import { fetchEntries } from './lazy-remote.ts';
import type { ArchivedItem, ChangeOptions, ExtractAnswer, Seen, Workspace } from './workspace.ts';

export class LazyWorkspace implements Workspace {
  private loaded: LazyView | undefined;

  constructor(readonly session: Session) {}

  get root(): string {
    return this.session.contents;
  }

  /** The entries only in the zip, loaded once per workspace (through the manifest, checked as it loads). */
  private get view(): LazyView {
    this.loaded ??= lazyView(this.session);
    return this.loaded;
  }

  stat(beneath: Beneath, input: string): Seen {
    return resolveSeen(beneath, input, this.view);
  }

  archivedChildren(relative: string): Map<string, ArchivedItem> {
    return this.view.children(relative);
  }

  // An entry only in the zip is read from a file it is inflated into, once (lazy-reader.ts).
  async fileFor(item: ArchivedItem, limits: Limits): Promise<string> {
    await fetchEntries(this.session, this.view.lazy, [item.index!]);
    return withLazyReader(this.session, this.view.lazy, limits, (reader) =>
      entryFileForRead(this.session, reader, item.index!),
    );
  }

  // Each entry is checked as a read checks it (a bomb is refused), and read through the reader's
  // descriptor, held open for the search: the zip checked to be the base is the one read.
  async withGrepItems<T>(
    start: string,
    accept: (relative: string) => boolean,
    limits: Limits,
    search: (items: GrepZipEntry[]) => Promise<T>,
  ): Promise<T> {
    const { view, session } = this;
    const chosen: number[] = [];
    for (const index of view.indexesAt(start)) {
      // Not folders, nor what the glob leaves out (never read, so never refused).
      if (view.lazy.type(index) === 'dir' || !accept(view.lazy.paths[index]!)) continue;
      if (view.item(index).encrypted) continue; // without its key, an encrypted entry has no text to search
      chosen.push(index);
    }
    await fetchEntries(session, view.lazy, chosen);
    return withLazyReader(session, view.lazy, limits, (reader) => {
      const items: GrepZipEntry[] = [];
      for (const index of chosen) {
        const file = view.lazy.paths[index]!;
        items.push({ file, zipPath: session.record.source_path, zipFd: reader.fd, entry: reader.location(index) });
      }
      return search(items);
    });
  }

  async prepareChange(inputs: string[], { home, limits }: ChangeOptions): Promise<void> {
    await extractForChange(this.session, inputs, home, limits);
    this.loaded = undefined;
  }

  prepareFolderOf(input: string): void {
    makeZipOnlyFolders(this.session, input);
  }

  removeArchived(inputs: string | readonly string[], recursive: boolean): number {
    const removed = deleteFromZipOnly(this.session, inputs, recursive);
    this.loaded = undefined;
    return removed;
  }

  async extract(paths: readonly string[] | undefined, options: ChangeOptions): Promise<ExtractAnswer> {
    const lazy = lazyEntries(this.session)!;
    // All of them is every entry zipfs can extract: an encrypted one without its key stays in the zip.
    const chosen = paths?.length ? matchEntries(lazy, paths) : unlockedIndexes(lazy);
    const done = await extractEntries({ session: this.session, lazy, indexes: chosen, ...options });
    this.loaded = undefined;
    return { extracted: done.count, bytes: done.bytes, not_extracted: notExtractedCount(this.session) };
  }

  notExtracted(): number {
    return notExtractedCount(this.session);
  }

  base(): Base {
    return new LazyBase(readManifest(this.session.manifest), this.session.dir);
  }
}
