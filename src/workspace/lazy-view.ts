/**
 * What ls, tree and read see of a lazy session besides its folder: the
 * entries not extracted (nor deleted), as files and folders at their paths,
 * with the sizes and times the archive records. What is on disk wins over
 * them, as a checked-out file wins over the index in a sparse checkout.
 */
import { ZipfsError } from '../base/errors.ts';
import type { Beneath } from '../files/beneath.ts';
import { normaliseToolPath, resolveExisting } from '../files/safe-path.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import type { Session } from '../session/session-store.ts';
import { trackedIndexes, readManifest } from '../session/read-manifest.ts';
import { encryptionOf, lockedEntry } from '../zip/index.ts';
import type { ArchivedItem, Seen } from './workspace.ts';

const SLASH = 0x2f;

export class LazyView {
  constructor(
    readonly lazy: LazyEntries,
    private readonly tracked: ReadonlySet<number>,
  ) {}

  /** The items directly in folder `relative` ('' for the root) that are only in the zip, by name. */
  children(relative: string): Map<string, ArchivedItem> {
    const found = new Map<string, ArchivedItem>();
    const prefix = relative === '' ? '' : `${relative}/`;
    // Paths come sorted, so a subfolder's entries come together: its name is cut once, not once per entry in it.
    let folder = '';
    this.lazy.forEachUnder(relative, (index) => {
      if (this.tracked.has(index)) return;
      const own = this.lazy.paths[index]!;
      if (folder !== '' && own.startsWith(folder) && own.charCodeAt(folder.length) === SLASH) return;
      const slash = own.indexOf('/', prefix.length);
      if (slash >= 0) {
        folder = own.slice(0, slash);
        const name = own.slice(prefix.length, slash);
        // A folder only implied by paths below it shows the time of its first entry.
        if (!found.has(name))
          found.set(name, { type: 'dir', size: 0, mtime: this.lazy.directory.entry(index).modifiedAt });
        return;
      }
      found.set(own.slice(prefix.length), this.item(index));
    });
    return found;
  }

  /** The item at `relative` when it is only in the zip: an entry not extracted, or a folder with such entries below. */
  at(relative: string): ArchivedItem | undefined {
    const index = this.lazy.indexOf(relative);
    if (index >= 0 && !this.tracked.has(index)) return this.item(index);
    let folder: ArchivedItem | undefined;
    this.lazy.forEachUnder(relative, (below) => {
      if (this.tracked.has(below)) return true;
      folder = { type: 'dir', size: 0, mtime: this.lazy.directory.entry(below).modifiedAt };
      return false;
    });
    return folder;
  }

  /** The entries at `relative` and below it that are only in the zip (not extracted, nor deleted), in path order. */
  indexesAt(relative: string): number[] {
    const found: number[] = [];
    const own = this.lazy.indexOf(relative);
    if (own >= 0 && !this.tracked.has(own)) found.push(own);
    this.lazy.forEachUnder(relative, (index) => {
      if (!this.tracked.has(index)) found.push(index);
    });
    return found;
  }

  item(index: number): ArchivedItem {
    const entry = this.lazy.directory.entry(index);
    const type = this.lazy.type(index);
    const item: ArchivedItem = {
      type,
      size: type === 'dir' ? 0 : entry.uncompressedSize,
      mtime: entry.modifiedAt,
      index,
    };
    const encrypted = lockedEntry(entry) ? encryptionOf(entry) : undefined;
    if (encrypted) item.encrypted = encrypted;
    return item;
  }
}

/** The view of a lazy session. */
export function lazyView(session: Session): LazyView {
  // Through the manifest: its lines are checked against the directory as it loads (lazy-integrity.ts).
  const manifest = readManifest(session.manifest);
  return new LazyView(manifest.lazy!(), trackedIndexes(manifest));
}

/**
 * A path as ls, tree and read take it: on disk, or else only in the zip.
 * What is in neither is PATH_NOT_FOUND, as before.
 */
export function resolveSeen(beneath: Beneath, input: string, view: LazyView): Seen {
  try {
    const disk = resolveExisting(beneath, input);
    return { relative: disk.relative, disk };
  } catch (error) {
    if (!(error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error;
    const relative = normaliseToolPath(input);
    const archived = view.at(relative);
    if (!archived) throw error;
    return { relative, archived };
  }
}
