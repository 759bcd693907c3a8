/**
 * A path as another version than the workspace has it (DESIGN.md, "Merges": resolving is done in
 * the session), as `git show :path` and `git restore --source` reach one: `zip`, the zip on disk
 * now (another writer may have replaced it since the session's base), or `base`, the zip as the
 * session opened or last synced it (the zip itself while it is still that archive, else the copy
 * the session keeps: session/base-archive.ts). Entries are placed at the paths open gives them
 * (`\` and `./` are one path) and the directory checked as a lazy open checks one; an entry's bytes
 * are decoded through the codec registry, held to open's size limits, and verified (CRC-32, sizes)
 * as open verifies what it extracts.
 */
import { fetchEntries } from './lazy-remote.ts';
import fs from 'node:fs';
import { ZipfsError, isSystemError, throwRefusal } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { DeclaredSizes } from '../rules/declared-sizes.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import type { ItemType } from '../rules/item-type.ts';
import type { Limits } from '../rules/limits.ts';
import { basePath } from '../session/base-archive.ts';
import { lazyEntriesOf, type LazyEntries } from '../session/lazy-entries.ts';
import type { Session } from '../session/session-store.ts';
import { fingerprintOf, isNewArchive, openBase, sameArchive } from '../session/source-state.ts';
import {
  FileSource,
  assertReadable,
  entryLayoutFault,
  locateEntryData,
  openRefusal,
  readEntryData,
  readPackedDirectory,
  streamEntryData,
  type ZipEntry,
} from '../zip/index.ts';
import { cachedRead, readCachePath } from './lazy-reader.ts';

export type VersionName = 'zip' | 'base';

/** One item of a version: an entry, or (index -1) a folder only implied by the paths below it. */
export interface VersionItem {
  index: number;
  path: string;
  type: ItemType;
  size: number;
  crc32: number;
}

/** The session's base read from a file other than the zip: the copy it keeps, if it is still that archive. */
function keptBase(session: Session): FileSource | undefined {
  let source: FileSource;
  try {
    source = new FileSource(basePath(session.dir));
  } catch {
    return undefined;
  }
  const fingerprint = source.size === session.record.source.size ? fingerprintOf(source) : undefined;
  if (fingerprint && sameArchive(fingerprint, session.record.source)) return source;
  source.close();
  return undefined;
}

/**
 * The file the session's base is read from: the zip while it is still the base, else the copy the session keeps;
 * undefined when neither (or for a new archive, which has no base).
 */
export function openBaseSource(session: Session): FileSource | undefined {
  if (isNewArchive(session.record)) return undefined;
  const opened = openBase(session.record);
  return opened.source ?? keptBase(session);
}

function zipSource(session: Session): FileSource {
  const zipPath = session.record.source_path;
  try {
    return new FileSource(zipPath);
  } catch (error) {
    if (!isSystemError(error, 'ENOENT', 'ENOTDIR')) throw error;
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The zip ${zipPath} is gone, so there is no zip version to take; the workspace and the base (version ` +
        `"base") still are.`,
    );
  }
}

function noBase(session: Session): ZipfsError {
  return new ZipfsError(
    'CONFLICT_DETECTED',
    `The zip ${session.record.source_path} changed since this session's base (another writer), and the session ` +
      `keeps no copy of the base (a link to the zip, or a copy up to 16 MiB where no link can be made), so the ` +
      `base's version cannot be read. Take the zip's (version "zip") or keep the workspace's; ` +
      `${invocation('diff', { against: 'zip' })} shows how they differ.`,
  );
}

/** A version of the session's archive, open for reading; close it after. */
export class Version {
  private constructor(
    readonly name: VersionName,
    private readonly source: FileSource | undefined,
    private readonly lazy: LazyEntries | undefined,
    private readonly limits: Limits,
    /** A remote session's mirror, when this version is read from it (its inode): what is read is fetched first. */
    private readonly mirror?: { session: Session },
  ) {}

  /** The zip now or the base; a zip refused as open would refuse it is refused here, naming the version. */
  static open(session: Session, name: VersionName, limits: Limits): Version {
    if (name === 'base' && isNewArchive(session.record)) return new Version(name, undefined, undefined, limits);
    const source = name === 'zip' ? zipSource(session) : openBaseSource(session);
    if (!source) throw noBase(session);
    try {
      const { lazy } = lazyEntriesOf(
        readPackedDirectory(source, session.record.name_encoding),
        sessionFolderRules(session.record),
      );
      const mirrored = session.record.remote && fs.statSync(session.record.source_path).ino === source.stats.ino;
      return new Version(name, source, lazy, limits, mirrored ? { session } : undefined);
    } catch (error) {
      source.close();
      if (!(error instanceof ZipfsError) || name === 'base') throw error;
      throw new ZipfsError(
        error.code,
        `The zip ${session.record.source_path} as it is now is refused as open would refuse it: ${error.message}`,
        { cause: error },
      );
    }
  }

  /** Every entry's path, by index ('' for a root entry). */
  get paths(): readonly string[] {
    return this.lazy?.paths ?? [];
  }

  /** The item at `relative`, or undefined when this version has none there. */
  find(relative: string): VersionItem | undefined {
    const { lazy } = this;
    if (!lazy || relative === '') return undefined;
    const index = lazy.indexOf(relative);
    if (index >= 0) return this.item(index);
    return lazy.hasFolder(relative) ? { index: -1, path: relative, type: 'dir', size: 0, crc32: 0 } : undefined;
  }

  item(index: number): VersionItem {
    const lazy = this.lazy!;
    const type = lazy.type(index);
    const dir = lazy.directory;
    const file = type !== 'dir';
    return {
      index,
      path: lazy.paths[index]!,
      type,
      size: file ? dir.uncompressedSize(index) : 0,
      crc32: file ? dir.entry(index).crc32 : 0,
    };
  }

  /** The entries below folder `relative` ('' for all), in path order. */
  forEachUnder(relative: string, visit: (index: number) => void): void {
    this.lazy?.forEachUnder(relative, visit);
  }

  /** The entry checked as open checks one it extracts: readable, its sizes within open's limits, its headers whole. */
  private check(index: number): ZipEntry {
    const lazy = this.lazy!;
    const entry = lazy.directory.entry(index);
    assertReadable(entry);
    const sizes = new DeclaredSizes(this.limits, throwRefusal, () => entry.name);
    sizes.add(index, entry.uncompressedSize, entry.compressedSize);
    sizes.finish();
    const fault = entryLayoutFault(this.source!, entry, lazy.directory.rawEnds()[index]!, lazy.directory.centralStart);
    if (fault) throw openRefusal(fault);
    return entry;
  }

  /** The entry's bytes, verified. */
  read(item: VersionItem): Uint8Array {
    if (item.type === 'dir') return new Uint8Array(0);
    return readEntryData(this.source!, this.check(item.index)).slice();
  }

  /** Makes the entries `indexes` readable: a remote session's mirror fetches what it lacks (nothing otherwise). */
  async fetch(indexes: readonly number[]): Promise<void> {
    if (this.mirror && this.lazy) await fetchEntries(this.mirror.session, this.lazy, indexes);
  }

  /** The entry's bytes in pieces, verified as they come. */
  async stream(item: VersionItem, sink: (chunk: Uint8Array) => void): Promise<void> {
    await this.fetch([item.index]);
    const entry = this.check(item.index);
    await streamEntryData(this.source!, entry, locateEntryData(this.source!, entry), sink);
  }

  /**
   * A file holding the item's bytes, for reads by page: kept in the session's read cache (beside the workspace, never
   * in it), so paging through it decodes it once.
   */
  async file(session: Session, item: VersionItem): Promise<string> {
    const file = readCachePath(session, `${this.name}-${item.crc32.toString(16)}-${item.size}`);
    return cachedRead(file, item.size, (sink) => this.stream(item, sink));
  }

  close(): void {
    this.source?.close();
  }
}

/** Runs `fn` with a version of the session's archive, closed after. */
export async function withVersion<T>(
  session: Session,
  name: VersionName,
  limits: Limits,
  fn: (version: Version) => T | Promise<T>,
): Promise<T> {
  const version = Version.open(session, name, limits);
  try {
    return await fn(version);
  } finally {
    version.close();
  }
}
