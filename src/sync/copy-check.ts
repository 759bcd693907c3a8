/**
 * What a sync copies raw is checked as open checks what it extracts, once.
 * An eager open inflated every entry and checked its CRC-32, so copying the
 * entries of its zip unchanged copies checked bytes. A session that keeps entries in the zip never read
 * most of its entries, and a merge (or a forced sync) copies the bytes of a
 * zip another writer made: copied unchecked, a damaged entry (a bad CRC-32, a
 * broken deflate stream, a data descriptor or local header that disagrees)
 * went into an archive that open then refused, and sync reported success.
 *
 * So such an entry is read before it is copied: its local header against its
 * central record, its data inflated (or, stored, read) to its declared size
 * with its CRC-32, and its data descriptor. Once per session: its first sync
 * checks every entry it copies that was not extracted, and the next session
 * record says the whole base was checked (Base.copiesChecked), so later syncs
 * copy without reading again; entries it extracted were checked
 * then. The cost is one read and inflate of the archive at such a session's
 * first sync, and at a merge (the README has the figures).
 *
 * Small entries are checked in place, from the packed directory, with no
 * object per entry (a million-entry session's first sync); only a fault, and
 * an entry large enough to be streamed, goes through the reader open uses,
 * which names what is wrong.
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { invocation } from '../base/message-marks.ts';
import { entryPath } from '../rules/entry-paths.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { crc32 } from '../zip/codec.ts';
import {
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  FLAG_PATCHED,
  FLAG_STRONG_ENCRYPTION,
  LOCAL_HEADER_LENGTH,
  SIG_DATA_DESCRIPTOR,
} from '../zip/constants.ts';
import {
  decodeOrUndefined,
  entryLayoutFault,
  locateEntryData,
  lockedEntry,
  packedLayoutFault,
  readEntryData,
  storedAsIs,
  streamEntryData,
  type FileSource,
  type PackedDirectory,
  type ZipEntry,
} from '../zip/index.ts';
import type { Pause } from '../base/event-loop-turns.ts';

/** Entries up to this size are read whole; larger ones stream, a few MiB at a time. */
const WHOLE_BELOW_BYTES = 8 << 20;
const PIECE_BYTES = 4 << 20;
const UNREADABLE = FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_PATCHED;

/**
 * Which copies were checked already: every one (a session's own zip checked at open or at an earlier sync), those
 * extracted, or none (another writer's zip).
 */
type Trust = 'all' | 'extracted' | 'none';

export interface CopyCheckOptions {
  /** Which copies from this session's own zip were checked already (Base.copiesChecked). */
  checked: 'all' | 'extracted';
  /** The source is another writer's zip (a merge, or a forced sync over it). */
  otherWriter: boolean;
  /** The source's descriptor, for large stored entries read through one reused buffer. */
  fd: number;
  pause: Pause;
  /** Entries checked already, as strictly, in this very zip (a merge's plan: MergePlan.dataChecked). */
  checkedAlready?: ReadonlySet<number>;
  /**
   * A remote S3 session's copies (remote/server-copies.ts). An entry whose bytes its mirror lacks is not read here:
   * the store copies it (UploadPartCopy) from the very version the session's directory describes, on
   * x-amz-copy-source-if-match with its ETag, so the new archive holds exactly the bytes the old one did, and
   * fetching the whole archive to check them is what copying on the server saves. Such an entry is as sound as it
   * was; entries the mirror has, and everything the writer produces, are checked as for a local zip.
   */
  serverCopies?: { absent(start: number, end: number): boolean };
}

export class CopyCheck {
  private readonly trust: Trust;
  private piece: Buffer | undefined;
  private checked = 0;

  constructor(
    private readonly source: FileSource,
    private readonly directory: PackedDirectory,
    private readonly options: CopyCheckOptions,
  ) {
    this.trust = options.otherWriter ? 'none' : options.checked;
  }

  /**
   * Before copying entry `index` of the source raw (`record`: the manifest's for it, if it lists it).
   * A promise only when there is something to wait for (a large entry, or a fault to name): the copy
   * loop runs a million times, and an async call each time was a million promises (80 MiB at 1M entries).
   */
  beforeCopy(index: number, record?: EntryRecord): Promise<void> | undefined {
    if (this.trusts(index, record)) return undefined;
    const size = Math.max(this.directory.compressedSize(index), this.directory.uncompressedSize(index));
    // Each small entry's inflated bytes are garbage outside the heap's view: a collection every so
    // often keeps a million-entry check near its start's memory (without: 190 MiB more at 1M entries).
    if ((++this.checked & 0xffff) === 0) Bun.gc(false);
    if (size < WHOLE_BELOW_BYTES && this.soundInPlace(index)) return undefined;
    return this.checkParsed(index).then(() => {
      if (size < WHOLE_BELOW_BYTES) return undefined;
      Bun.gc(false); // a streamed entry's pieces, read and inflated, are as much garbage as its size
      return this.options.pause(); // a long check lets progress and a cancel through
    });
  }

  /** Whether entry `index` was checked already (then beforeCopy has nothing to do). */
  trusts(index: number, record?: EntryRecord): boolean {
    if (this.trust === 'all' || (this.trust === 'extracted' && record?.extracted)) return true;
    const copies = this.options.serverCopies;
    if (copies?.absent(this.directory.localHeaderOffset(index), this.directory.rawEnds()[index]!)) return true;
    return this.options.checkedAlready?.has(index) === true;
  }

  /**
   * Whether a small entry's headers, data and CRC-32 are sound, read in place; false sends it to checkParsed, which
   * says why.
   */
  private soundInPlace(index: number): boolean {
    const { directory, source } = this;
    const limit = directory.rawEnds()[index]!;
    if (packedLayoutFault(source, directory, index, limit)) return false;
    const flags = directory.flags(index);
    const method = directory.method(index);
    if (flags & UNREADABLE) return false;
    const at = directory.localHeaderOffset(index);
    const h = source.peek(at, LOCAL_HEADER_LENGTH);
    if (h < 0) return false;
    const dataOffset = at + LOCAL_HEADER_LENGTH + le16(source.view, h + 26) + le16(source.view, h + 28);
    const compressed = directory.compressedSize(index);
    const size = directory.uncompressedSize(index);
    // Through peek's one reused buffer, not read's windows: a new window every few MiB was garbage the size of the
    // archive.
    const p = source.peek(dataOffset, compressed);
    if (p < 0) return false;
    const data = decodeOrUndefined(method, source.view.subarray(p, p + compressed), size);
    if (!data) return false;
    const crc = directory.field32(index, 16);
    if (crc32(data) !== crc) return false;
    if (!(flags & FLAG_DATA_DESCRIPTOR)) return true;
    // As open reads a data descriptor: its signature is optional, its CRC-32 must be the directory's.
    const d = source.peek(dataOffset + compressed, 16);
    if (d < 0) return false;
    const crcAt = le32(source.view, d) === SIG_DATA_DESCRIPTOR ? 4 : 0;
    return le32(source.view, d + crcAt) === crc;
  }

  /** Entry `index` through the reader open uses: throws the refusal naming what is wrong. */
  private async checkParsed(index: number): Promise<void> {
    const entry = this.directory.entry(index);
    const fault = entryLayoutFault(this.source, entry, this.directory.rawEnds()[index]!, this.directory.centralStart);
    if (fault) throw damaged(entry.name, reasonIn(fault.message), this.trust === 'none');
    if (lockedEntry(entry)) return; // encrypted, without its key: its layout is all sync can check, and copies
    let reason: string | undefined;
    try {
      if (Math.max(entry.compressedSize, entry.uncompressedSize) < WHOLE_BELOW_BYTES) readEntryData(this.source, entry);
      else if (storedAsIs(entry)) reason = this.storedFault(entry);
      else await streamEntryData(this.source, entry, locateEntryData(this.source, entry), () => {});
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
      reason = reasonIn(error.message);
    }
    if (reason !== undefined) throw damaged(entry.name, reason, this.trust === 'none');
  }

  /**
   * What is wrong with a large stored entry's CRC-32 or data descriptor, read through one reused buffer (streamed, each
   * piece would be a new 4 MiB).
   */
  private storedFault(entry: ZipEntry): string | undefined {
    const span = locateEntryData(this.source, entry);
    const piece = (this.piece ??= Buffer.allocUnsafe(PIECE_BYTES));
    let crc = 0;
    for (let at = span.dataOffset; at < span.dataEnd; ) {
      const n = fs.readSync(this.options.fd, piece, 0, Math.min(piece.length, span.dataEnd - at), at);
      if (n === 0) return 'data is cut off (unexpected end of file)';
      crc = crc32(piece.subarray(0, n), crc);
      at += n;
    }
    if (crc !== entry.crc32) return `CRC-32 mismatch: stored ${hex(entry.crc32)}, data gives ${hex(crc)}`;
    if (!(entry.flags & FLAG_DATA_DESCRIPTOR)) return undefined;
    const d = this.source.peek(span.dataEnd, 16);
    const crcAt = d >= 0 && le32(this.source.view, d) === SIG_DATA_DESCRIPTOR ? 4 : 0;
    return d < 0 || le32(this.source.view, d + crcAt) !== entry.crc32
      ? 'its data descriptor is cut off or differs from the central directory'
      : undefined;
  }
}

function le16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

function le32(bytes: Uint8Array, at: number): number {
  return (le16(bytes, at) | (le16(bytes, at + 2) << 16)) >>> 0;
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}

/** The reason in open's refusal of an entry, without the entry's name before it or open's advice after it. */
function reasonIn(message: string): string {
  return message.replace(/^Entry "[^]*?"(: | )/, '').replace(/[.;] (The archive is damaged|its headers lie)[^]*$/, '');
}

/** Where the entry named `name` is in the workspace (open refused a name it cannot place). */
function workspacePath(name: string): string {
  try {
    return entryPath(name).path;
  } catch {
    return name;
  }
}

/** The refusal: which entry, what is wrong, and what to do; nothing was written over the zip. */
function damaged(name: string, reason: string, otherWriter: boolean): ZipfsError {
  const fix = otherWriter
    ? `The zip's other writer left it damaged: repair the zip (zip -FF) or have it written again, then sync.`
    : `Delete it from the session (${invocation('delete', { path: workspacePath(name) })}; the workspace's other ` +
      `changes stay) and sync again, or repair the zip (zip -FF in.zip --out fixed.zip) and open the repaired copy.`;
  return new ZipfsError(
    'ZIP_INVALID',
    `Sync stopped before replacing the zip: entry ${quoted(name)} of the zip is damaged (${reason}), and sync ` +
      `copies it as it is, so zipfs open would refuse the new archive. The zip was left as it was. ${fix}`,
  );
}
