import { ZipfsError } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { ByteReader } from './bytes.ts';
import { InflateError, crc32 } from './codec.ts';
import { lockedRefusal, stillLocked } from './encryption.ts';
import { decodingOf, unreadableReason, type EntryDecoding } from './codec-registry.ts';
import type { EntryCipher, PieceTransform } from './codec-types.ts';
import { FLAG_DATA_DESCRIPTOR, LOCAL_HEADER_LENGTH, SIG_DATA_DESCRIPTOR, SIG_LOCAL_HEADER } from './constants.ts';
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
    `Entry ${quoted(entry.name)}: ${reason}. The archive is damaged or uses a feature zipfs cannot read; nothing ` +
      `was extracted.`,
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
  if (stillLocked(entry)) throw lockedRefusal(entry);
  decodingFor(entry);
}

/**
 * Refuses a wrong password for an encrypted entry before any of its data is decoded: the layer's check value
 * (ZipCrypto's check byte, WinZip AES's verifier) is read from its header. Nothing for a plain entry.
 */
export function assertKeyFits(source: ZipSource, entry: EntryLocation): void {
  const decoding = decodingOf(entry);
  if (decoding?.cipher) unwrap(source, entry, decoding.cipher, locateEntryData(source, entry));
}

/** How `entry` is decoded, asked of the codec registry; an entry it cannot decode is refused, naming its method. */
function decodingFor(entry: EntryLocation): EntryDecoding {
  const decoding = decodingOf(entry);
  if (!decoding) throw invalid(entry, unreadableReason(entry));
  return decoding;
}

/** A codec's failure as open refuses it: output past the declared size is a bomb, damaged data invalid. */
function decodeFailure(entry: EntryLocation, error: unknown): Error {
  if (error instanceof InflateError && error.overflow) {
    return new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `Entry ${quoted(entry.name)} inflates to more than the ${entry.uncompressedSize} bytes its header declares; ` +
        `its headers lie, so the archive was refused.`,
    );
  }
  return invalid(entry, (error as Error).message);
}

function checkDecodedSize(entry: EntryLocation, size: number): void {
  if (size !== entry.uncompressedSize)
    throw invalid(
      entry,
      `inflates to ${size} bytes, not the declared ${entry.uncompressedSize} (unexpected end of data)`,
    );
}

function checkCrc(entry: EntryLocation, decoding: EntryDecoding, actual: number): void {
  if (actual !== entry.crc32 && !decoding.cipher?.skipsCrc?.(entry))
    throw invalid(entry, `CRC-32 mismatch (stored ${hex(entry.crc32)}, data gives ${hex(actual)})`);
}

/** The span of the data under an encryption layer, and the layer's decryptor for it (its header and trailer read). */
function unwrap(
  source: ZipSource,
  entry: EntryLocation,
  cipher: EntryCipher,
  span: EntrySpan,
): { span: EntrySpan; decrypt: PieceTransform } {
  const { head, tail } = cipher.overhead(entry);
  if (span.dataEnd - span.dataOffset < head + tail)
    throw invalid(entry, `data is shorter than its ${cipher.name} header (unexpected end of data)`);
  const inner = { dataOffset: span.dataOffset + head, dataEnd: span.dataEnd - tail };
  const decrypt = cipher.decryptor(
    entry,
    source.read(span.dataOffset, head).slice(),
    source.read(inner.dataEnd, tail).slice(),
  );
  return { span: inner, decrypt };
}

/** The layer's own check after the last piece (a wrong password, a MAC that differs), refused as damaged data. */
function endDecrypt(entry: EntryLocation, decrypt: PieceTransform): void {
  try {
    decrypt.end();
  } catch (error) {
    throw invalid(entry, (error as Error).message);
  }
}

/**
 * Returns an entry's uncompressed bytes, verified: decoding stops at the
 * declared size, short output and CRC mismatches are errors, and a data
 * descriptor must agree with the central directory. For stored entries the
 * result may be a view of the source's read window: treat it as read-only.
 */
export function readEntryData(
  source: ZipSource,
  entry: EntryLocation,
  span = locateEntryData(source, entry),
): Uint8Array {
  const decoding = decodingFor(entry);
  const { codec, cipher } = decoding;
  let raw = source.read(span.dataOffset, entry.compressedSize);
  if (raw.length < entry.compressedSize) throw invalid(entry, 'data is cut off (unexpected end of file)');
  if (cipher) {
    const { span: inner, decrypt } = unwrap(source, entry, cipher, span);
    raw = decrypt.piece(raw.subarray(inner.dataOffset - span.dataOffset, inner.dataEnd - span.dataOffset));
    endDecrypt(entry, decrypt);
  }
  const sizeFault = codec.sizeFault?.(raw.length, entry.uncompressedSize);
  if (sizeFault !== undefined) throw invalid(entry, sizeFault);
  let data: Uint8Array;
  try {
    data = codec.decode(raw, entry.uncompressedSize);
  } catch (error) {
    throw decodeFailure(entry, error);
  }
  checkDecodedSize(entry, data.length);
  checkCrc(entry, decoding, crc32(data));
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
  const decoding = decodingFor(entry);
  const { codec, cipher } = decoding;
  const layer = cipher && unwrap(source, entry, cipher, span);
  const { dataOffset, dataEnd } = layer?.span ?? span;
  const chunks = function* () {
    for (let at = dataOffset; at < dataEnd; at += STREAM_CHUNK_BYTES) {
      const chunk = source.read(at, Math.min(STREAM_CHUNK_BYTES, dataEnd - at));
      if (chunk.length === 0) throw invalid(entry, 'data is cut off (unexpected end of file)');
      yield layer ? layer.decrypt.piece(chunk) : chunk;
    }
    if (layer) endDecrypt(entry, layer.decrypt);
  };
  let crc = 0;
  let size = 0;
  const take = (chunk: Uint8Array) => {
    crc = crc32(chunk, crc);
    size += chunk.length;
    sink(chunk);
  };
  const sizeFault = codec.sizeFault?.(dataEnd - dataOffset, entry.uncompressedSize);
  if (sizeFault !== undefined) throw invalid(entry, sizeFault);
  try {
    await codec.decodeStream(chunks(), entry.uncompressedSize, take);
  } catch (error) {
    // The sink's own failure (a full disk), or the input's refusal (cut off), passes as it is.
    if (!(error instanceof InflateError)) throw error;
    throw decodeFailure(entry, error);
  }
  checkDecodedSize(entry, size);
  checkCrc(entry, decoding, crc);
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
