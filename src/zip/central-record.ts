/**
 * One central-directory record, parsed: the fields every reader needs, the
 * raw bytes sync copies. Shared by the whole-directory reader and the packed one.
 */
import { ZipfsError } from '../base/errors.ts';
import { ByteReader } from './bytes.ts';
import { CENTRAL_HEADER_LENGTH, HOST_MACOS, HOST_UNIX, S_IFLNK, S_IFMT } from './constants.ts';
import { dosDateTimeToDate } from './dos-time.ts';
import { applyZip64, extendedTimestamp, parseExtraFields, unicodePath, type ExtraField } from './extra-fields.ts';
import type { CodePage } from './code-pages.ts';
import { decodeEntryText } from './names.ts';
import { quoted } from '../format/quote-name.ts';
import type { ZipEntry } from './types.ts';

export function invalid(message: string): ZipfsError {
  return new ZipfsError('ZIP_INVALID', `${message}. The archive is damaged; re-create or re-download it.`);
}

/**
 * Where a record's bytes sit: the archive's base offset, the file offset of the reader's first byte, and the
 * encoding names without the UTF-8 flag are read in (names.ts; undefined: UTF-8, else CP437).
 */
export interface RecordPlace {
  baseOffset: number;
  regionStart: number;
  nameEncoding?: CodePage | undefined;
}

/**
 * Parses one central-directory record held on its own (one a sync has just
 * encoded), as if found at file offset `centralOffset` of an archive whose
 * offsets start at `baseOffset`, its name read as the session reads names.
 */
export function parseCentralRecordBytes(
  record: Uint8Array,
  index: number,
  baseOffset: number,
  centralOffset: number,
  nameEncoding?: CodePage,
): ZipEntry {
  return parseCentralRecord(new ByteReader(record), 0, index, { baseOffset, regionStart: centralOffset, nameEncoding });
}

const NO_BYTES = new Uint8Array(0);
const NO_FIELDS: ExtraField[] = [];

/**
 * A parsed central record, read from `reader` at `at` (the record's index, the archive's base offset and
 * where the reader's bytes start in the file place it). `modifiedAt` is computed when first asked for:
 * turning DOS fields into a local time costs a zone lookup (and, where the C library cannot be used, the
 * runtime's 4-5 ms time-zone set-up), and a sync's read-back check parses thousands of records needing no
 * time. The constructor parses, so a record costs one object and its fields no options bag.
 */
class CentralRecord implements ZipEntry {
  private time: Date | undefined;
  readonly name: string;
  readonly rawName: Uint8Array;
  readonly isDirectory: boolean;
  readonly isSymlink: boolean;
  readonly versionMadeBy: number;
  readonly versionNeeded: number;
  readonly flags: number;
  readonly method: number;
  readonly dosTime: number;
  readonly dosDate: number;
  /** From an extended-timestamp field, when there is one. */
  private readonly unixSeconds: number | undefined;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly internalAttributes: number;
  readonly externalAttributes: number;
  readonly unixMode: number | undefined;
  readonly comment: string;
  readonly rawExtra: Uint8Array;
  readonly rawComment: Uint8Array;
  readonly localHeaderOffset: number;
  readonly centralOffset: number;
  readonly centralLength: number;

  constructor(
    reader: ByteReader,
    at: number,
    readonly index: number,
    { baseOffset, regionStart, nameEncoding }: RecordPlace,
  ) {
    const region = reader.bytes;
    const nameLength = reader.u16(at + 28);
    const extraLength = reader.u16(at + 30);
    const commentLength = reader.u16(at + 32);
    const length = CENTRAL_HEADER_LENGTH + nameLength + extraLength + commentLength;
    if (at + length > region.length)
      throw invalid(`Central-directory record ${index + 1} runs past the end of the directory`);

    // Most records have no extra fields and no comment: those skip the views and lookups.
    const nameStart = at + CENTRAL_HEADER_LENGTH;
    const extraStart = nameStart + nameLength;
    const commentStart = extraStart + extraLength;
    const rawName = region.subarray(nameStart, extraStart);
    const rawExtra = extraLength > 0 ? region.subarray(extraStart, commentStart) : NO_BYTES;
    const rawComment = commentLength > 0 ? region.subarray(commentStart, at + length) : NO_BYTES;
    const fields = extraLength > 0 ? parseExtraFields(rawExtra) : NO_FIELDS;
    const flags = reader.u16(at + 8);
    const name =
      (extraLength > 0 ? unicodePath(fields, rawName) : undefined) ?? decodeEntryText(rawName, flags, nameEncoding);
    const sizes = applyZip64(fields, {
      compressedSize: reader.u32(at + 20),
      uncompressedSize: reader.u32(at + 24),
      localHeaderOffset: reader.u32(at + 42),
    });
    if (!sizes)
      throw invalid(`Entry ${quoted(name)} has 32-bit fields saturated for zip64 but no complete zip64 extra field`);

    const versionMadeBy = reader.u16(at + 4);
    const externalAttributes = reader.u32(at + 38);
    const host = versionMadeBy >> 8;
    const modeBits = externalAttributes >>> 16;
    const unixMode = (host === HOST_UNIX || host === HOST_MACOS) && modeBits !== 0 ? modeBits : undefined;

    this.name = name;
    this.rawName = rawName;
    this.isDirectory = name.endsWith('/');
    this.isSymlink = unixMode !== undefined && (unixMode & S_IFMT) === S_IFLNK;
    this.versionMadeBy = versionMadeBy;
    this.versionNeeded = reader.u16(at + 6);
    this.flags = flags;
    this.method = reader.u16(at + 10);
    this.dosTime = reader.u16(at + 12);
    this.dosDate = reader.u16(at + 14);
    this.unixSeconds =
      extraLength > 0
        ? extendedTimestamp(fields, ((reader.u16(at + 14) << 16) | reader.u16(at + 12)) >>> 0)
        : undefined;
    this.crc32 = reader.u32(at + 16);
    this.compressedSize = sizes.compressedSize;
    this.uncompressedSize = sizes.uncompressedSize;
    this.internalAttributes = reader.u16(at + 36);
    this.externalAttributes = externalAttributes;
    this.unixMode = unixMode;
    this.comment = commentLength > 0 ? decodeEntryText(rawComment, flags, nameEncoding) : '';
    this.rawExtra = rawExtra;
    this.rawComment = rawComment;
    this.localHeaderOffset = baseOffset + sizes.localHeaderOffset;
    this.centralOffset = regionStart + at;
    this.centralLength = length;
  }

  get modifiedAt(): Date {
    return (this.time ??=
      this.unixSeconds !== undefined
        ? new Date(this.unixSeconds * 1000)
        : dosDateTimeToDate(this.dosDate, this.dosTime));
  }
}

export function parseCentralRecord(reader: ByteReader, at: number, index: number, place: RecordPlace): ZipEntry {
  return new CentralRecord(reader, at, index, place);
}
