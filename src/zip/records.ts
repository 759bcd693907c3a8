/**
 * Encoding of local headers, central-directory records and end records, with
 * zip64 fields exactly where sizes, offsets or counts need them.
 */
import { ByteReader } from './bytes.ts';
import { ByteWriter } from './byte-writer.ts';
import { versionNeededFor } from './codec-registry.ts';
import {
  CENTRAL_HEADER_LENGTH,
  END_OF_CENTRAL_DIR_LENGTH,
  EXTRA_EXTENDED_TIMESTAMP,
  EXTRA_NTFS,
  EXTRA_ZIP64,
  LOCAL_HEADER_LENGTH,
  SIG_CENTRAL_HEADER,
  SIG_END_OF_CENTRAL_DIR,
  SIG_LOCAL_HEADER,
  SIG_ZIP64_END_OF_CENTRAL_DIR,
  SIG_ZIP64_LOCATOR,
  UINT16_MAX,
  UINT32_MAX,
  ZIP64_END_OF_CENTRAL_DIR_LENGTH,
  ZIP64_LOCATOR_LENGTH,
} from './constants.ts';
import { fitsExtendedTimestamp, parseExtraFields, type ExtraField } from './extra-fields.ts';

/** What a newly written entry's headers say. */
export interface EntryFields {
  versionMadeBy: number;
  flags: number;
  method: number;
  dosTime: number;
  dosDate: number;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  rawName: Uint8Array;
  comment: Uint8Array;
  internalAttributes: number;
  externalAttributes: number;
  /** Write both sizes in zip64 fields even when they fit: a streamed entry's header is written
   * before its sizes are known, and must keep its length when it is filled in. */
  zip64?: boolean;
}

const ZIP64_VERSION = 45;

export function serializeExtraFields(fields: ExtraField[]): Uint8Array {
  const out = new ByteWriter(fields.reduce((n, f) => n + 4 + f.data.length, 0));
  for (const field of fields) out.u16(field.id).u16(field.data.length).put(field.data);
  return out.done();
}

/** Seconds between 1601-01-01 (the NTFS epoch) and 1970-01-01. */
const NTFS_EPOCH_OFFSET = 11_644_473_600;

/**
 * Extra fields without zip64 (recomputed on write), with the modification time
 * in the extended-timestamp and NTFS fields set to `unixSeconds`, so no reader
 * shows the old time for new data; every other field stays as it was. A time
 * the extended timestamp cannot hold for every reader (before 1970, after
 * 2106) drops that field: the DOS fields then carry the time, where a wrapped
 * 32-bit value would have sent it to another century.
 */
export function refreshExtraFields(block: Uint8Array, unixSeconds: number): ExtraField[] {
  return parseExtraFields(block)
    .filter((f) => f.id !== EXTRA_ZIP64)
    .flatMap((f) => {
      if (f.id === EXTRA_EXTENDED_TIMESTAMP && f.data.length >= 5 && (f.data[0]! & 1) === 1) {
        if (!fitsExtendedTimestamp(unixSeconds)) return [];
        const data = f.data.slice();
        new DataView(data.buffer).setUint32(1, unixSeconds, true);
        return [{ id: f.id, data }];
      }
      if (
        f.id === EXTRA_NTFS &&
        f.data.length >= 32 &&
        new ByteReader(f.data).u16(4) === 1 &&
        new ByteReader(f.data).u16(6) >= 24
      ) {
        const data = f.data.slice();
        // FILETIME counts from 1601 in 64 bits: every time a file system gives fits (before 1601 is clamped to it).
        new DataView(data.buffer).setBigUint64(
          8,
          BigInt(Math.max(0, unixSeconds + NTFS_EPOCH_OFFSET)) * 10_000_000n,
          true,
        );
        return [{ id: f.id, data }];
      }
      return [f];
    });
}

function zip64Field(values: number[]): ExtraField {
  const data = new ByteWriter(values.length * 8);
  for (const value of values) data.u64(value);
  return { id: EXTRA_ZIP64, data: data.done() };
}

const needs64 = (value: number) => value >= UINT32_MAX;

export function encodeLocalHeader(fields: EntryFields, extra: ExtraField[]): Uint8Array {
  const zip64 = fields.zip64 === true || needs64(fields.uncompressedSize) || needs64(fields.compressedSize);
  const block = serializeExtraFields(
    zip64 ? [zip64Field([fields.uncompressedSize, fields.compressedSize]), ...extra] : extra,
  );
  return new ByteWriter(LOCAL_HEADER_LENGTH + fields.rawName.length + block.length)
    .u32(SIG_LOCAL_HEADER)
    .u16(versionNeeded(fields, zip64))
    .u16(fields.flags)
    .u16(fields.method)
    .u16(fields.dosTime)
    .u16(fields.dosDate)
    .u32(fields.crc32)
    .u32(zip64 ? UINT32_MAX : fields.compressedSize)
    .u32(zip64 ? UINT32_MAX : fields.uncompressedSize)
    .u16(fields.rawName.length)
    .u16(block.length)
    .put(fields.rawName)
    .put(block)
    .done();
}

export function encodeCentralRecord(fields: EntryFields, extra: ExtraField[], localHeaderOffset: number): Uint8Array {
  // The zip64 field holds, in this order, exactly the values whose 32-bit field says 0xFFFFFFFF.
  const wideSizes = fields.zip64 === true || needs64(fields.uncompressedSize) || needs64(fields.compressedSize);
  const wide = [
    ...(wideSizes ? [fields.uncompressedSize, fields.compressedSize] : []),
    ...(needs64(localHeaderOffset) ? [localHeaderOffset] : []),
  ];
  const block = serializeExtraFields(wide.length > 0 ? [zip64Field(wide), ...extra] : extra);
  return new ByteWriter(CENTRAL_HEADER_LENGTH + fields.rawName.length + block.length + fields.comment.length)
    .u32(SIG_CENTRAL_HEADER)
    .u16(fields.versionMadeBy)
    .u16(versionNeeded(fields, wide.length > 0))
    .u16(fields.flags)
    .u16(fields.method)
    .u16(fields.dosTime)
    .u16(fields.dosDate)
    .u32(fields.crc32)
    .u32(wideSizes ? UINT32_MAX : fields.compressedSize)
    .u32(wideSizes ? UINT32_MAX : fields.uncompressedSize)
    .u16(fields.rawName.length)
    .u16(block.length)
    .u16(fields.comment.length)
    .u16(0)
    .u16(fields.internalAttributes)
    .u32(fields.externalAttributes)
    .u32(needs64(localHeaderOffset) ? UINT32_MAX : localHeaderOffset)
    .put(fields.rawName)
    .put(block)
    .put(fields.comment)
    .done();
}

/** The method's version, raised to zip64's where zip64 fields are written (a method may need more than 4.5: zstd's 6.3). */
function versionNeeded(fields: EntryFields, zip64: boolean): number {
  const version = versionNeededFor(fields.method);
  return zip64 ? Math.max(ZIP64_VERSION, version) : version;
}

/** The common case, run for every copied entry of a sync: the new offset goes in the 32-bit field of the record at `start`. */
export function relocatesInPlace(record: Uint8Array, offset: number, start = 0): boolean {
  const stored =
    (record[start + 42]! | (record[start + 43]! << 8) | (record[start + 44]! << 16) | (record[start + 45]! << 24)) >>>
    0;
  return stored !== UINT32_MAX && !needs64(offset);
}

/**
 * A copied central-directory record with only its local-header offset
 * changed. Where the offset lives in a zip64 field it is rewritten there; an
 * offset that no longer fits 32 bits gets a zip64 field added.
 */
export function relocateCentralRecord(record: Uint8Array, offset: number): Uint8Array {
  if (relocatesInPlace(record, offset)) {
    const out = record.slice();
    new DataView(out.buffer).setUint32(42, offset, true);
    return out;
  }
  const reader = new ByteReader(record);
  const nameLength = reader.u16(28);
  const extraLength = reader.u16(30);
  const extraStart = CENTRAL_HEADER_LENGTH + nameLength;
  const fields = parseExtraFields(record.subarray(extraStart, extraStart + extraLength));
  const saturated = [reader.u32(24), reader.u32(20)].filter((v) => v === UINT32_MAX).length;
  const old = fields.find((f) => f.id === EXTRA_ZIP64);
  const values: number[] = [];
  for (let i = 0; i < saturated; i++) values.push(new ByteReader(old!.data).u64(i * 8));
  values.push(offset);
  const extra = serializeExtraFields([zip64Field(values), ...fields.filter((f) => f.id !== EXTRA_ZIP64)]);
  const tail = record.subarray(extraStart + extraLength);
  const rebuilt = new Uint8Array(extraStart + extra.length + tail.length);
  rebuilt.set(record.subarray(0, extraStart));
  rebuilt.set(extra, extraStart);
  rebuilt.set(tail, extraStart + extra.length);
  const rebuiltView = new DataView(rebuilt.buffer);
  rebuiltView.setUint16(6, Math.max(reader.u16(6), ZIP64_VERSION), true);
  rebuiltView.setUint16(30, extra.length, true);
  rebuiltView.setUint32(42, UINT32_MAX, true);
  return rebuilt;
}

/** The end records. The zip64 pair is written when a count, size or offset
 * needs it, or when the original archive had one (`keepZip64`). */
export function encodeEnd(
  count: number,
  directoryOffset: number,
  directorySize: number,
  comment: Uint8Array,
  keepZip64: boolean,
): Uint8Array {
  const zip64 = keepZip64 || count >= UINT16_MAX || needs64(directoryOffset) || needs64(directorySize);
  const parts: Uint8Array[] = [];
  if (zip64) {
    const zip64EndOffset = directoryOffset + directorySize;
    parts.push(
      new ByteWriter(ZIP64_END_OF_CENTRAL_DIR_LENGTH)
        .u32(SIG_ZIP64_END_OF_CENTRAL_DIR)
        .u64(ZIP64_END_OF_CENTRAL_DIR_LENGTH - 12)
        .u16(ZIP64_VERSION)
        .u16(ZIP64_VERSION)
        .u32(0)
        .u32(0)
        .u64(count)
        .u64(count)
        .u64(directorySize)
        .u64(directoryOffset)
        .done(),
      new ByteWriter(ZIP64_LOCATOR_LENGTH).u32(SIG_ZIP64_LOCATOR).u32(0).u64(zip64EndOffset).u32(1).done(),
    );
  }
  parts.push(
    new ByteWriter(END_OF_CENTRAL_DIR_LENGTH + comment.length)
      .u32(SIG_END_OF_CENTRAL_DIR)
      .u16(0)
      .u16(0)
      // Values that fit are written as they are (as Python does), for readers that ignore zip64.
      .u16(Math.min(count, UINT16_MAX))
      .u16(Math.min(count, UINT16_MAX))
      .u32(Math.min(directorySize, UINT32_MAX))
      .u32(Math.min(directoryOffset, UINT32_MAX))
      .u16(comment.length)
      .put(comment)
      .done(),
  );
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
