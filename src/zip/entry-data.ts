import { ZipfsError } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { ByteReader } from './bytes.ts';
import { InflateError, crc32, inflateRaw, inflateRawStream } from './codec.ts';
import {
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  FLAG_PATCHED,
  FLAG_STRONG_ENCRYPTION,
  LOCAL_HEADER_LENGTH,
  METHOD_DEFLATED,
  METHOD_NAMES,
  METHOD_STORED,
  SIG_DATA_DESCRIPTOR,
  SIG_LOCAL_HEADER,
} from './constants.ts';
import type { ZipSource } from './source.ts';
import type { EntryLocation } from './types.ts';

/** Where an entry's compressed bytes sit, learnt from its local header. */
export interface EntrySpan {
  /** Absolute offset of the first data byte. */
  dataOffset: number;
  /** Absolute offset one past the last data byte (a data descriptor may follow). */
  dataEnd: number;
}

function invalid(entry: EntryLocation, reason: string): ZipfsError {
  return new ZipfsError(
    'ZIP_INVALID',
    `Entry ${quoted(entry.name)}: ${reason}. The archive is damaged or uses a feature zipfs cannot read; nothing was extracted.`,
  );
}

/** Reads the local header to find the data. The central directory's sizes are
 * authoritative (local ones may be zero when a data descriptor follows). */
export function locateEntryData(source: ZipSource, entry: EntryLocation): EntrySpan {
  const header = source.read(entry.localHeaderOffset, LOCAL_HEADER_LENGTH);
  if (header.length < LOCAL_HEADER_LENGTH)
    throw invalid(entry, `local header at offset ${entry.localHeaderOffset} is cut off (unexpected end of file)`);
  const reader = new ByteReader(header);
  if (reader.u32(0) !== SIG_LOCAL_HEADER) throw invalid(entry, `no local header at offset ${entry.localHeaderOffset}`);
  const dataOffset = entry.localHeaderOffset + LOCAL_HEADER_LENGTH + reader.u16(26) + reader.u16(28);
  const dataEnd = dataOffset + entry.compressedSize;
  if (dataEnd > source.size)
    throw invalid(entry, `data runs ${dataEnd - source.size} bytes past the end of the file (unexpected end of file)`);
  return { dataOffset, dataEnd };
}

/** The local header's extra-field block (it may differ from the central one, e.g. an atime in the timestamp field). */
export function readLocalExtra(source: ZipSource, entry: EntryLocation): Uint8Array {
  const header = new ByteReader(source.read(entry.localHeaderOffset, LOCAL_HEADER_LENGTH).slice());
  const at = entry.localHeaderOffset + LOCAL_HEADER_LENGTH + header.u16(26);
  return source.read(at, header.u16(28)).slice();
}

/** Refuses entries whose data zipfs cannot decode, before any byte is read. */
export function assertReadable(entry: EntryLocation): void {
  if (entry.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION))
    throw invalid(entry, 'is encrypted, and zipfs does not decrypt; decrypt the archive with its own tool first');
  if (entry.flags & FLAG_PATCHED)
    throw invalid(entry, 'holds "compressed patched data" (flag bit 5), which zipfs and most readers do not support');
  if (entry.method !== METHOD_STORED && entry.method !== METHOD_DEFLATED) {
    const name = METHOD_NAMES[entry.method] ?? 'unknown';
    throw invalid(
      entry,
      `uses compression method ${entry.method} (${name}); zipfs reads stored and deflate entries, so re-create the archive with deflate`,
    );
  }
}

/**
 * Returns an entry's uncompressed bytes, verified: inflation stops at the
 * declared size, short output and CRC mismatches are errors, and a data
 * descriptor must agree with the central directory. For stored entries the
 * result may be a view of the source's read window: treat it as read-only.
 */
export function readEntryData(
  source: ZipSource,
  entry: EntryLocation,
  span = locateEntryData(source, entry),
): Uint8Array {
  assertReadable(entry);
  const raw = source.read(span.dataOffset, entry.compressedSize);
  if (raw.length < entry.compressedSize) throw invalid(entry, 'data is cut off (unexpected end of file)');
  let data: Uint8Array;
  if (entry.method === METHOD_STORED) {
    if (entry.compressedSize !== entry.uncompressedSize)
      throw invalid(
        entry,
        `is stored but its sizes differ (${entry.compressedSize} stored, ${entry.uncompressedSize} declared)`,
      );
    data = raw;
  } else {
    try {
      data = inflateRaw(raw, entry.uncompressedSize);
    } catch (error) {
      if (error instanceof InflateError && error.overflow) {
        throw new ZipfsError(
          'ZIP_BOMB_DETECTED',
          `Entry ${quoted(entry.name)} inflates to more than the ${entry.uncompressedSize} bytes its header declares; its headers lie, so the archive was refused.`,
        );
      }
      throw invalid(entry, (error as Error).message);
    }
    if (data.length !== entry.uncompressedSize)
      throw invalid(
        entry,
        `inflates to ${data.length} bytes, not the declared ${entry.uncompressedSize} (unexpected end of data)`,
      );
  }
  const actual = crc32(data);
  if (actual !== entry.crc32)
    throw invalid(entry, `CRC-32 mismatch (stored ${hex(entry.crc32)}, data gives ${hex(actual)})`);
  if (entry.flags & FLAG_DATA_DESCRIPTOR) checkDataDescriptor(source, entry, span.dataEnd);
  return data;
}

const STREAM_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The streaming twin of readEntryData, for entries too large to hold in
 * memory: the verified bytes go to `sink` chunk by chunk, and every check of
 * readEntryData still applies (at the end: a caller must discard what it wrote
 * when this rejects).
 */
export async function streamEntryData(
  source: ZipSource,
  entry: EntryLocation,
  span: EntrySpan,
  sink: (chunk: Uint8Array) => void,
): Promise<void> {
  assertReadable(entry);
  const chunks = function* () {
    for (let at = span.dataOffset; at < span.dataEnd; at += STREAM_CHUNK_BYTES) {
      const chunk = source.read(at, Math.min(STREAM_CHUNK_BYTES, span.dataEnd - at));
      if (chunk.length === 0) throw invalid(entry, 'data is cut off (unexpected end of file)');
      yield chunk;
    }
  };
  let crc = 0;
  let size = 0;
  const take = (chunk: Uint8Array) => {
    crc = crc32(chunk, crc);
    size += chunk.length;
    sink(chunk);
  };
  if (entry.method === METHOD_STORED) {
    if (entry.compressedSize !== entry.uncompressedSize)
      throw invalid(
        entry,
        `is stored but its sizes differ (${entry.compressedSize} stored, ${entry.uncompressedSize} declared)`,
      );
    for (const chunk of chunks()) take(chunk);
  } else {
    try {
      await inflateRawStream(chunks(), entry.uncompressedSize, take);
    } catch (error) {
      if (error instanceof InflateError && error.overflow) {
        throw new ZipfsError(
          'ZIP_BOMB_DETECTED',
          `Entry ${quoted(entry.name)} inflates to more than the ${entry.uncompressedSize} bytes its header declares; its headers lie, so the archive was refused.`,
        );
      }
      if (!(error instanceof InflateError)) throw error; // the sink's own failure (a full disk), as it is
      throw invalid(entry, error.message);
    }
  }
  if (size !== entry.uncompressedSize)
    throw invalid(
      entry,
      `inflates to ${size} bytes, not the declared ${entry.uncompressedSize} (unexpected end of data)`,
    );
  if (crc !== entry.crc32) throw invalid(entry, `CRC-32 mismatch (stored ${hex(entry.crc32)}, data gives ${hex(crc)})`);
  if (entry.flags & FLAG_DATA_DESCRIPTOR) checkDataDescriptor(source, entry, span.dataEnd);
}

/** The descriptor's signature is optional; its CRC must match the directory's.
 * Its sizes may be 32 or 64 bits wide and are not needed, so they are not read. */
function checkDataDescriptor(source: ZipSource, entry: EntryLocation, at: number): void {
  const bytes = source.read(at, 16).slice();
  const reader = new ByteReader(bytes);
  const crcAt = bytes.length >= 4 && reader.u32(0) === SIG_DATA_DESCRIPTOR ? 4 : 0;
  if (bytes.length < crcAt + 12) throw invalid(entry, 'data descriptor is cut off (unexpected end of file)');
  const described = reader.u32(crcAt);
  if (described !== entry.crc32)
    throw invalid(
      entry,
      `CRC-32 in the data descriptor (${hex(described)}) differs from the central directory's (${hex(entry.crc32)})`,
    );
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0');
}
