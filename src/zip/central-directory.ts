import { ByteReader } from './bytes.ts';
import { CENTRAL_HEADER_LENGTH, SIG_CENTRAL_HEADER } from './constants.ts';
import { readDirectoryEnd } from './end-of-central-directory.ts';
import { invalid } from './central-record.ts';
import { PackedDirectory } from './packed-directory.ts';
import type { ZipSource } from './source.ts';
import type { CodePage } from './code-pages.ts';
import type { CentralDirectory, ZipEntry } from './types.ts';
import { jitFor } from '../base/jit-policy.ts';

/**
 * Reads the whole central directory: every entry's metadata, without touching
 * entry data. Only the directory and end records are read from the source.
 * Each entry becomes an object (about 0.5 KB): for archives of hundreds of
 * thousands of entries, readPackedDirectory keeps the records as bytes instead.
 */
export function readCentralDirectory(source: ZipSource, nameEncoding?: CodePage): CentralDirectory {
  const packed = readPackedDirectory(source, nameEncoding);
  const entries: ZipEntry[] = new Array(packed.count);
  for (let i = 0; i < packed.count; i++) entries[i] = packed.entry(i);
  return {
    entries,
    comment: packed.comment,
    commentBytes: packed.commentBytes,
    baseOffset: packed.baseOffset,
    centralStart: packed.centralStart,
    centralEnd: packed.centralEnd,
    zip64: packed.zip64,
  };
}

/**
 * The directory as it was read: records as bytes, the end record's facts beside them; names without the UTF-8 flag
 * read in `nameEncoding` when given (names.ts).
 */
export function readPackedDirectory(source: ZipSource, nameEncoding?: CodePage): PackedDirectory {
  const end = readDirectoryEnd(source);
  const start = findDirectoryStart(source, end.endOffset, end.directoryOffset, end.directorySize);
  const baseOffset = start - end.directoryOffset;
  const regionLength = end.endOffset - start;

  // Every record takes at least 46 bytes: a count the region cannot hold is a lie
  // (CVE-2021-33196 made Go allocate for billions of entries), not a reason to allocate.
  if (!end.countMayWrap && end.entryCount * CENTRAL_HEADER_LENGTH > regionLength) {
    throw invalid(
      `The end record claims ${end.entryCount} entries, more than the ${regionLength}-byte central directory can hold`,
    );
  }
  jitFor(end.entryCount); // everything from here on loops over the entries
  // Not copied: the source hands out fresh buffers for reads this large, and views of windows it never reuses.
  const region = source.read(start, regionLength);
  const packed = new PackedDirectory(region, {
    baseOffset,
    centralStart: start,
    comment: end.comment,
    commentBytes: end.commentBytes,
    zip64: end.zip64,
    nameEncoding,
  });

  // Writers that do not know zip64 let the 16-bit count wrap past 65,535, so only
  // the low 16 bits are compared then (as Go does); zip64 counts must match exactly.
  const counted = end.countMayWrap ? packed.count % 0x10000 : packed.count;
  if (counted !== end.entryCount) {
    throw invalid(
      `The central directory holds ${packed.count} readable records but the end record says ${end.entryCount}`,
    );
  }
  return packed;
}

/**
 * Where the central directory starts in the file (and the bytes before the archive proper), found from the end
 * records alone: no record is read, so what only needs the directory's place (a fingerprint of it) pays nothing per
 * entry.
 */
export function directoryPlace(source: ZipSource): { start: number; baseOffset: number } {
  const end = readDirectoryEnd(source);
  const start = findDirectoryStart(source, end.endOffset, end.directoryOffset, end.directorySize);
  return { start, baseOffset: start - end.directoryOffset };
}

/**
 * Where the central directory starts. Offsets inside an archive are relative to
 * its own first byte, which differs from the file's when a stub precedes it; the
 * gap is implied by where the end record sits. Offset 0 is tried first, as Go
 * does: when the end record's size field is wrong, the implied gap is fiction.
 */
function findDirectoryStart(
  source: ZipSource,
  endOffset: number,
  directoryOffset: number,
  directorySize: number,
): number {
  const implied = endOffset - directorySize - directoryOffset;
  for (const base of implied > 0 ? [0, implied] : [0]) {
    const start = base + directoryOffset;
    if (start + 4 > endOffset) continue;
    const signature = source.read(start, 4);
    if (signature.length === 4 && new ByteReader(signature.slice()).u32(0) === SIG_CENTRAL_HEADER) return start;
  }
  if (directorySize === 0 && directoryOffset <= endOffset) return endOffset; // an empty archive
  throw invalid(`No central directory at offset ${directoryOffset}, where the end record points`);
}

export { parseCentralRecordBytes } from './central-record.ts';
