import { ByteReader } from './bytes.ts';
import { EXTRA_EXTENDED_TIMESTAMP, EXTRA_UNICODE_PATH, EXTRA_ZIP64, UINT32_MAX } from './constants.ts';
import { crc32 } from './codec.ts';

/** One extra field: its header id and its data bytes. */
export interface ExtraField {
  id: number;
  data: Uint8Array;
}

/** Splits an extra-field block. A trailing fragment too short for a header is ignored, as other readers do. */
export function parseExtraFields(block: Uint8Array): ExtraField[] {
  const fields: ExtraField[] = [];
  const reader = new ByteReader(block);
  let at = 0;
  while (at + 4 <= block.length) {
    const id = reader.u16(at);
    const size = reader.u16(at + 2);
    const end = Math.min(at + 4 + size, block.length);
    fields.push({ id, data: block.subarray(at + 4, end) });
    at = at + 4 + size;
  }
  return fields;
}

export interface Zip64Values {
  uncompressedSize: number;
  compressedSize: number;
  localHeaderOffset: number;
}

/**
 * Applies the zip64 extended-information field: it holds, in this order, only
 * those values whose 32-bit field is saturated (0xFFFFFFFF).
 */
export function applyZip64(fields: ExtraField[], values: Zip64Values): Zip64Values | undefined {
  const field = fields.length > 0 ? fields.find((f) => f.id === EXTRA_ZIP64) : undefined;
  const needs =
    values.uncompressedSize === UINT32_MAX ||
    values.compressedSize === UINT32_MAX ||
    values.localHeaderOffset === UINT32_MAX;
  if (!field) return needs ? undefined : values;
  const reader = new ByteReader(field.data);
  const out = { ...values };
  let at = 0;
  for (const key of ['uncompressedSize', 'compressedSize', 'localHeaderOffset'] as const) {
    if (values[key] !== UINT32_MAX) continue;
    if (at + 8 > field.data.length) return undefined;
    out[key] = reader.u64(at);
    at += 8;
  }
  return out;
}

/**
 * The extended-timestamp field (0x5455, "UT") holds Unix seconds in 32 bits without saying
 * whether they are signed. 7-Zip, Go, Java and libarchive read them unsigned (1970 to 2106);
 * Info-ZIP's zip writes times before 1970 as negative numbers, with the DOS fields at their
 * 1980 minimum. A value with the top bit set is therefore read as Info-ZIP's unzip reads it:
 * before 1970 when the DOS time is that minimum, after 2038-01-19 when the DOS time is from
 * 2038-01-18 on, and not at all (the DOS time decides) when the two disagree.
 */
const DOS_MINIMUM = 0x0021_0000;
const DOS_2038_01_18 = 0x7432_0000;
const TOP_BIT = 0x8000_0000;

/** The modification time (Unix seconds) from an extended-timestamp field, if it carries a usable one.
 * `dosDateTime` is the record's DOS date and time as one number (date in the high 16 bits). */
export function extendedTimestamp(fields: ExtraField[], dosDateTime: number): number | undefined {
  const field = fields.find((f) => f.id === EXTRA_EXTENDED_TIMESTAMP);
  if (!field || field.data.length < 5 || (field.data[0]! & 1) === 0) return undefined;
  const seconds = new ByteReader(field.data).u32(1);
  if (seconds < TOP_BIT) return seconds;
  if (dosDateTime === DOS_MINIMUM) return seconds - 2 ** 32;
  return dosDateTime >= DOS_2038_01_18 ? seconds : undefined;
}

/** Whether a time can go in an extended-timestamp field so that every reader agrees on it:
 * 1970-01-01 to 2106-02-07 (unsigned 32 bits). Other times are left to the DOS fields. */
export function fitsExtendedTimestamp(unixSeconds: number): boolean {
  return unixSeconds >= 0 && unixSeconds <= UINT32_MAX;
}

/** A new extended-timestamp field holding only the modification time, or undefined when the time does not fit. */
export function extendedTimestampField(unixSeconds: number): ExtraField | undefined {
  if (!fitsExtendedTimestamp(unixSeconds)) return undefined;
  const data = new Uint8Array(5);
  data[0] = 1; // flags: modification time present
  new DataView(data.buffer).setUint32(1, unixSeconds, true);
  return { id: EXTRA_EXTENDED_TIMESTAMP, data };
}

/** The Info-ZIP Unicode Path field's name, when its CRC matches the stored name (else the name was edited since). */
export function unicodePath(fields: ExtraField[], rawName: Uint8Array): string | undefined {
  const field = fields.find((f) => f.id === EXTRA_UNICODE_PATH);
  if (!field || field.data.length < 6 || field.data[0] !== 1) return undefined;
  if (new ByteReader(field.data).u32(1) !== crc32(rawName)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(field.data.subarray(5));
  } catch {
    return undefined;
  }
}
