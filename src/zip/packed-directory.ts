/**
 * A central directory kept as its bytes, with one number per entry (where its
 * record starts). Parsing every record into an object costs about 0.5 KB per
 * entry: 500 MiB for a million entries. Kept packed, the same directory costs
 * its own size (about 80 bytes per entry) plus 4 bytes, and an entry is parsed
 * only when asked for; the few fields hot loops need are read in place.
 */
import { ByteReader } from './bytes.ts';
import { CENTRAL_HEADER_LENGTH, HOST_MACOS, HOST_UNIX, SIG_CENTRAL_HEADER, UINT32_MAX } from './constants.ts';
import { invalid, parseCentralRecord, type RecordPlace } from './central-record.ts';
import type { CodePage } from './code-pages.ts';
import type { ZipEntry } from './types.ts';

export interface PackedFacts {
  /** Bytes before the archive proper (a self-extractor stub): added to every stored offset. */
  baseOffset: number;
  /** Absolute file offset of the directory's first byte. */
  centralStart: number;
  comment: string;
  commentBytes: Uint8Array;
  zip64: boolean;
  /** The encoding of names without the UTF-8 flag, when the session names one (names.ts). */
  nameEncoding?: CodePage | undefined;
}

export class PackedDirectory {
  readonly count: number;
  /** Absolute offset one past the last record. */
  readonly centralEnd: number;
  readonly baseOffset: number;
  readonly centralStart: number;
  readonly comment: string;
  readonly commentBytes: Uint8Array;
  readonly zip64: boolean;
  private readonly reader: ByteReader;
  /** Where records sit and how their names are read: one object for every entry() call. */
  private readonly place: RecordPlace;
  /** Where each record starts in `region`. */
  private readonly starts: Uint32Array;
  private offsetOrder: Uint32Array | undefined;
  /** Each entry's local-header offset, by index, as byOffset read them. */
  private offsets: Float64Array | undefined;
  private ends: Float64Array | undefined;
  /** The region as a Buffer, for decoding names in place: one view, not one per name. */
  private text: Buffer | undefined;

  get nameEncoding(): CodePage | undefined {
    return this.place.nameEncoding;
  }

  /** `region`: the directory's bytes from its first record; what follows the last record (end records) is ignored. */
  constructor(
    readonly region: Uint8Array,
    facts: PackedFacts,
  ) {
    ({
      baseOffset: this.baseOffset,
      centralStart: this.centralStart,
      comment: this.comment,
      commentBytes: this.commentBytes,
      zip64: this.zip64,
    } = facts);
    this.reader = new ByteReader(region);
    this.place = { baseOffset: this.baseOffset, regionStart: this.centralStart, nameEncoding: facts.nameEncoding };
    if (region.length > UINT32_MAX) throw invalid('The central directory is over 4 GiB');
    // Records are walked twice (count, then starts) so the starts array is allocated once at its size.
    let count = 0;
    let at = 0;
    while (at + CENTRAL_HEADER_LENGTH <= region.length && this.reader.u32(at) === SIG_CENTRAL_HEADER) {
      count++;
      at += this.recordLengthAt(at);
    }
    this.count = count;
    this.starts = new Uint32Array(count);
    at = 0;
    for (let i = 0; i < count; i++) {
      this.starts[i] = at;
      at += this.recordLengthAt(at);
    }
    if (at > region.length) throw invalid(`Central-directory record ${count} runs past the end of the directory`);
    this.centralEnd = this.centralStart + at;
  }

  /** Entry `index`, parsed now (not kept: ask again, or keep it yourself). */
  entry(index: number): ZipEntry {
    return parseCentralRecord(this.reader, this.starts[index]!, index, this.place);
  }

  /** Where entry `index`'s record starts in `region`, and its length: for copying it without a view. */
  recordStart(index: number): number {
    return this.starts[index]!;
  }

  recordLength(index: number): number {
    return this.recordLengthAt(this.starts[index]!);
  }

  /** Entry `index`'s record as stored, for copying it into another archive. */
  record(index: number): Uint8Array {
    const at = this.starts[index]!;
    return this.region.subarray(at, at + this.recordLengthAt(at));
  }

  /** Absolute offset of entry `index`'s local header; read in place unless a zip64 field holds it. */
  localHeaderOffset(index: number): number {
    const stored = this.reader.u32(this.starts[index]! + 42);
    return stored === UINT32_MAX ? this.entry(index).localHeaderOffset : this.baseOffset + stored;
  }

  /**
   * Entry `index`'s name when it reads the same in every encoding zip uses (ASCII, no Unicode-path
   * extra field to prefer), read in place; undefined otherwise (ask entry() for the decoded name).
   */
  plainName(index: number): string | undefined {
    const start = this.plainNameStart(index);
    return start < 0 ? undefined : this.latin1(start, start + this.nameLength(index));
  }

  /**
   * Whether entry `index`'s name is `name`, compared in place where plainName would read it (undefined elsewhere): no
   * string made per entry, for a sync that matches thousands of records to their entries.
   */
  hasPlainName(index: number, name: string): boolean | undefined {
    const start = this.plainNameStart(index);
    if (start < 0) return undefined;
    const nameLength = this.nameLength(index);
    if (nameLength !== name.length) return false;
    for (let i = 0; i < nameLength; i++) if (this.region[start + i] !== name.charCodeAt(i)) return false;
    return true;
  }

  /** Where entry `index`'s name starts when plain (ASCII, no extra field that may hold a Unicode path), else -1. */
  private plainNameStart(index: number): number {
    const at = this.starts[index]!;
    if (this.reader.u16(at + 30) > 0) return -1;
    const start = at + CENTRAL_HEADER_LENGTH;
    const end = start + this.reader.u16(at + 28);
    for (let i = start; i < end; i++) if (this.region[i]! >= 0x80) return -1;
    return start;
  }

  /** Where entry `index`'s name starts in `region` (its length: nameLength). */
  nameStart(index: number): number {
    return this.starts[index]! + CENTRAL_HEADER_LENGTH;
  }

  /** `region[start, end)` as Latin-1 text, through one view of the region, not one per call. */
  latin1(start: number, end: number): string {
    return (this.text ??= Buffer.from(this.region.buffer, this.region.byteOffset, this.region.length)).toString(
      'latin1',
      start,
      end,
    );
  }

  /** Whether entry `index` is a symbolic link (Unix mode bits from a Unix or macOS creator), read in place. */
  isSymlink(index: number): boolean {
    const at = this.starts[index]!;
    const host = this.reader.u16(at + 4) >> 8;
    return (host === HOST_UNIX || host === HOST_MACOS) && ((this.reader.u32(at + 38) >>> 16) & 0o170000) === 0o120000;
  }

  /** A 16- or 32-bit field of entry `index`'s record, at `offset` within it (the fields APPNOTE 4.3.12 lists). */
  field16(index: number, offset: number): number {
    return this.reader.u16(this.starts[index]! + offset);
  }

  field32(index: number, offset: number): number {
    return this.reader.u32(this.starts[index]! + offset);
  }

  /** Entry `index`'s general-purpose flags and compression method, read in place. */
  flags(index: number): number {
    return this.reader.u16(this.starts[index]! + 8);
  }

  method(index: number): number {
    return this.reader.u16(this.starts[index]! + 10);
  }

  /**
   * Entry `index`'s sizes and name length, read in place unless a zip64 field holds a size (no object per call: hot
   * loops ask a million times).
   */
  compressedSize(index: number): number {
    const stored = this.reader.u32(this.starts[index]! + 20);
    return stored === UINT32_MAX ? this.entry(index).compressedSize : stored;
  }

  uncompressedSize(index: number): number {
    const stored = this.reader.u32(this.starts[index]! + 24);
    return stored === UINT32_MAX ? this.entry(index).uncompressedSize : stored;
  }

  nameLength(index: number): number {
    return this.reader.u16(this.starts[index]! + 28);
  }

  /** Entry indexes in the order their local headers sit in the file (computed once). */
  byOffset(): Uint32Array {
    if (this.offsetOrder) return this.offsetOrder;
    const offsets = new Float64Array(this.count);
    let sorted = true;
    for (let i = 0; i < this.count; i++) {
      offsets[i] = this.localHeaderOffset(i);
      if (i > 0 && offsets[i]! < offsets[i - 1]!) sorted = false;
    }
    const order = new Uint32Array(this.count);
    for (let i = 0; i < this.count; i++) order[i] = i;
    // Nearly every writer puts the directory in file order: then there is nothing to sort.
    if (!sorted) order.sort((a, b) => offsets[a]! - offsets[b]!);
    this.offsets = offsets;
    return (this.offsetOrder = order);
  }

  /**
   * Where each entry's raw bytes end (indexed by entry): the next local header in file order, or the directory
   * (computed once).
   */
  rawEnds(): Float64Array {
    if (this.ends) return this.ends;
    const order = this.byOffset();
    const offsets = this.offsets!; // byOffset read them: not read again
    const ends = new Float64Array(this.count);
    for (let k = 0; k < order.length; k++)
      ends[order[k]!] = k + 1 < order.length ? offsets[order[k + 1]!]! : this.centralStart;
    return (this.ends = ends);
  }

  private recordLengthAt(at: number): number {
    return CENTRAL_HEADER_LENGTH + this.reader.u16(at + 28) + this.reader.u16(at + 30) + this.reader.u16(at + 32);
  }
}
