/**
 * Entries written from the workspace during a sync: modified ones, which keep
 * the original's name, attributes, comment, extra fields and method, and
 * added ones, which get Unix attributes and an extended timestamp. Files up to
 * 8 MiB are read and compressed whole; larger ones stream through the deflater
 * in 4 MiB pieces, so a sync's memory does not grow with the file (a 5 GiB file
 * syncs in well under 300 MB).
 */
import fs from 'node:fs';
import type { Beneath } from '../files/beneath.ts';
import { crc32 } from '../zip/codec.ts';
import {
  EXTRA_UNICODE_PATH,
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  FLAG_UTF8,
  HOST_UNIX,
  S_IFDIR,
  S_IFLNK,
} from '../zip/constants.ts';
import { dateToDosDateTime } from '../zip/dos-time.ts';
import {
  encodeWhole,
  extendedTimestampField,
  innerMethodOf,
  methodToWrite,
  readLocalExtra,
  refreshExtraFields,
  startPieceEncoding,
  type EncodeChoice,
  type EntryFields,
  type ExtraField,
  type FileSource,
  type ZipEntry,
  type ZipWriter,
} from '../zip/index.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { observe, readLinkTarget } from './workspace-scan.ts';
import type { Observed } from './observed.ts';
import { openRegularFile } from '../base/regular-file.ts';
import type { Pause } from '../base/event-loop-turns.ts';
import { sealFor, sealWhole, withoutAes } from './seal-entry.ts';

/**
 * What was read from the workspace for each written entry, so the new manifest records the stat that matches the bytes.
 */
export type Captured = Map<string, Observed>;

const UNIX_MADE_BY = (HOST_UNIX << 8) | 20;
const STREAM_ABOVE_BYTES = 8 << 20;
const STREAM_PIECE_BYTES = 4 << 20;
/** From this size on a streamed entry's sizes go in zip64 fields: its header is written before
 * the compressed size is known, and deflate may add a little to data that does not compress. */
const ZIP64_FROM_BYTES = 0xf000_0000;

/** Where a sync's entries go, and what it keeps of them: the same for every entry of one sync. */
export interface EntrySink {
  writer: ZipWriter;
  /** The workspace, whose files are read through descriptors (beneath.ts). */
  beneath: Beneath;
  captured: Captured;
  pause: Pause;
  /** The archive has encrypted entries: additions are written encrypted too (seal-entry.ts). */
  sealed?: boolean;
}

/** A workspace item's content: its bytes, or for a large file the open descriptor to stream from. */
interface Content {
  observed: Observed;
  mode: number;
  bytes?: Uint8Array;
  fd?: number;
}

/** Reads (or opens, for streaming) a workspace item, noting its stat: if it changes after, the next status sees it. */
function capture(beneath: Beneath, relative: string, captured: Captured): Content {
  beneath.keepFoldersOf(relative); // one file at a time: keep only the folders on its way open
  const at = beneath.place(relative).path;
  const link = fs.lstatSync(at);
  if (link.isSymbolicLink()) {
    const observed = observe(link);
    captured.set(relative, observed);
    return { observed, mode: link.mode, bytes: readLinkTarget(at) };
  }
  const { fd, stats } = openRegularFile(at, relative);
  const observed = observe(stats);
  captured.set(relative, observed);
  if (stats.size > STREAM_ABOVE_BYTES) return { observed, mode: stats.mode, fd };
  try {
    return { observed, mode: stats.mode, bytes: fs.readFileSync(fd) };
  } finally {
    fs.closeSync(fd);
  }
}

/** The fields a new entry needs besides its data: everything else of EntryFields. */
type Frame = Omit<EntryFields, 'method' | 'crc32' | 'compressedSize' | 'uncompressedSize' | 'dosTime' | 'dosDate'>;

/** One entry to write: its fields, content, method and extra fields. */
interface NewEntry {
  frame: Frame;
  content: Content;
  method: EncodeChoice;
  localExtra: ExtraField[];
  centralExtra: ExtraField[];
  /** Written encrypted although the entry was not: an addition to an encrypted archive (seal-entry.ts). */
  sealed?: boolean;
}

/**
 * Writes one entry's data as `method` says ('auto': deflate unless it does not
 * help) and returns its central-directory record.
 */
async function writeContent({ writer, pause }: EntrySink, entry: NewEntry): Promise<Uint8Array> {
  const { content, method, localExtra, centralExtra } = entry;
  const seal = sealFor(entry.sealed || (entry.frame.flags & FLAG_ENCRYPTED) !== 0);
  const frame = { ...entry.frame, flags: entry.frame.flags & ~FLAG_ENCRYPTED };
  const time = dateToDosDateTime(new Date(content.observed.mtime_ms));
  if (content.fd === undefined) {
    const bytes = content.bytes ?? new Uint8Array(0);
    const packed = encodeWhole(bytes, method);
    const data = seal ? sealWhole(seal, packed.data) : packed.data;
    const plain = {
      ...frame,
      ...time,
      method: packed.method,
      crc32: seal ? 0 : crc32(bytes),
      compressedSize: data.length,
      uncompressedSize: bytes.length,
    };
    if (!seal) return writer.addEntry(plain, withoutAes(localExtra), withoutAes(centralExtra), data);
    const [local, central] = [seal.extra(localExtra, packed.method), seal.extra(centralExtra, packed.method)];
    return writer.addEntry(seal.frame(plain), local, central, data);
  }
  const fd = content.fd;
  try {
    const piece = Buffer.allocUnsafe(STREAM_PIECE_BYTES);
    const first = fs.readSync(fd, piece, 0, piece.length, null);
    const encoding = startPieceEncoding(method, piece.subarray(0, first));
    const plain = {
      ...frame,
      ...time,
      method: encoding.method,
      crc32: 0,
      compressedSize: 0,
      uncompressedSize: 0,
      zip64: content.observed.size >= ZIP64_FROM_BYTES,
    };
    const fields = seal ? seal.frame(plain) : plain;
    const extras = (list: ExtraField[]) => (seal ? seal.extra(list, encoding.method) : withoutAes(list));
    return await writer.addStreamedEntry(fields, extras(localExtra), extras(centralExtra), async (write) => {
      let crc = crc32(piece.subarray(0, first));
      let size = first;
      let packed = 0;
      const out = (chunk: Uint8Array) => {
        write(chunk);
        packed += chunk.length;
      };
      const emit = (chunk: Uint8Array) => out(seal ? seal.transform.piece(chunk) : chunk);
      if (seal) out(seal.head);
      emit(encoding.first);
      for (let n; (n = fs.readSync(fd, piece, 0, piece.length, null)) > 0; ) {
        const chunk = piece.subarray(0, n);
        crc = crc32(chunk, crc);
        size += n;
        // The writer may keep a small piece buffered: hand it a copy, the read buffer is reused.
        emit(encoding.piece(chunk));
        await pause();
      }
      emit(encoding.end());
      if (seal) out(seal.tail());
      return { crc32: seal ? 0 : crc, uncompressedSize: size, compressedSize: packed };
    });
  } finally {
    fs.closeSync(fd);
  }
}

/** What a rewritten entry keeps: the source's entry (if it still holds it), and where it is now. */
export interface Rewrite {
  original: ZipEntry | undefined;
  source: FileSource | undefined;
  diff: WorkspaceDiff;
  /** Its workspace path when it was renamed. */
  renamedTo?: string;
}

/**
 * A modified entry (or one the source no longer holds): new data, the original's name, attributes and method.
 * A renamed one (`renamedTo`, its workspace path now) gets that name, and its content from there; the rest
 * is the original's, minus an Info-ZIP Unicode Path field, which would still name the old path.
 * Returns the entry's central-directory record.
 */
export async function writeFromWorkspace(
  sink: EntrySink,
  record: EntryRecord,
  { original, source, diff, renamedTo }: Rewrite,
): Promise<Uint8Array> {
  const { beneath, captured } = sink;
  const at = renamedTo ?? record.path;
  // A folder entry is written afresh when it moved, or when a forced sync finds the source rewritten: it keeps the
  // folder's time.
  const folder =
    record.type === 'dir'
      ? (diff.observed.get(at) ?? { kind: 'dir', size: 0, mtime_ms: record.mtime_ms, ctime_ms: 0, ino: 0, nlink: 1 })
      : undefined;
  const content: Content = folder ? { observed: folder, mode: 0 } : capture(beneath, at, captured);
  let externalAttributes = original?.externalAttributes ?? record.external_attributes;
  let versionMadeBy = original?.versionMadeBy ?? UNIX_MADE_BY;
  if (content.observed.kind === 'symlink' && record.type === 'file') {
    // Another tool replaced the file with a link: store it as a link, never follow it.
    externalAttributes = ((S_IFLNK | 0o777) << 16) >>> 0;
    versionMadeBy = (HOST_UNIX << 8) | (versionMadeBy & 0xff);
  }
  const newName = renamedTo === undefined ? undefined : record.type === 'dir' ? `${renamedTo}/` : renamedTo;
  const frame: Frame = {
    versionMadeBy,
    flags:
      newName === undefined
        ? ((original?.flags ?? record.flags) & ~FLAG_DATA_DESCRIPTOR) | (original ? 0 : utf8Flag(record.name))
        : ((original?.flags ?? record.flags) & ~FLAG_DATA_DESCRIPTOR & ~FLAG_UTF8) | utf8Flag(newName),
    rawName:
      newName !== undefined
        ? new TextEncoder().encode(newName)
        : (original?.rawName ?? new TextEncoder().encode(record.name)),
    comment: original?.rawComment ?? new Uint8Array(0),
    internalAttributes: original?.internalAttributes ?? 0,
    externalAttributes,
  };
  const seconds = Math.floor(content.observed.mtime_ms / 1000);
  const localExtra = original && source ? readLocalExtra(source, original) : new Uint8Array(0);
  // Its own method where zipfs writes it, else deflate (WinZip AES: the method under it, kept under the new seal).
  const method = methodToWrite(original ? innerMethodOf(original) : record.method);
  const keep = (fields: ExtraField[]) =>
    newName === undefined ? fields : fields.filter((field) => field.id !== EXTRA_UNICODE_PATH);
  return writeContent(sink, {
    frame,
    content,
    method,
    localExtra: keep(refreshExtraFields(localExtra, seconds)),
    centralExtra: keep(refreshExtraFields(original?.rawExtra ?? new Uint8Array(0), seconds)),
  });
}

function utf8Flag(name: string): number {
  return /^[\x20-\x7e]*$/.test(name) ? 0 : FLAG_UTF8;
}

/** A new file, link or empty folder: Unix attributes, an extended timestamp, deflate unless it does not help.
 * Returns the entry's central-directory record. */
export async function writeAddition(sink: EntrySink, relative: string, observed: Observed): Promise<Uint8Array> {
  const { beneath, captured } = sink;
  const isDir = observed.kind === 'dir';
  const content: Content = isDir ? { observed, mode: S_IFDIR | 0o755 } : capture(beneath, relative, captured);
  const name = isDir ? `${relative}/` : relative;
  const mode = isDir
    ? S_IFDIR | 0o755
    : content.observed.kind === 'symlink'
      ? S_IFLNK | 0o777
      : (content.mode & 0o170777) | 0o600;
  // Outside 1970-2106 the extended timestamp would wrap: such a time is left to the DOS fields.
  const timestamp = extendedTimestampField(Math.floor(content.observed.mtime_ms / 1000));
  const extra = timestamp ? [timestamp] : [];
  const frame: Frame = {
    versionMadeBy: UNIX_MADE_BY,
    flags: utf8Flag(name),
    rawName: new TextEncoder().encode(name),
    comment: new Uint8Array(0),
    internalAttributes: 0,
    externalAttributes: ((mode << 16) | (isDir ? 0x10 : 0)) >>> 0,
  };
  const sealed = sink.sealed === true && !isDir;
  return writeContent(sink, { frame, content, method: 'auto', localExtra: extra, centralExtra: extra, sealed });
}
