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
  const needs = values.uncompressedSize === UINT32_MAX || values.compressedSize === UINT32_MAX || values.localHeaderOffset === UINT32_MAX;
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

/** The modification time (Unix seconds) from an extended-timestamp field, if it carries one. */
export function extendedTimestamp(fields: ExtraField[]): number | undefined {
  const field = fields.find((f) => f.id === EXTRA_EXTENDED_TIMESTAMP);
  if (!field || field.data.length < 5 || (field.data[0]! & 1) === 0) return undefined;
  return new ByteReader(field.data).u32(1) | 0; // signed: times before 1970 are negative
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
