import { ZipfsError } from '../base/errors.ts';
import { ByteReader } from './bytes.ts';
import {
  END_OF_CENTRAL_DIR_LENGTH,
  SIG_END_OF_CENTRAL_DIR,
  SIG_ZIP64_END_OF_CENTRAL_DIR,
  SIG_ZIP64_LOCATOR,
  UINT16_MAX,
  ZIP64_END_OF_CENTRAL_DIR_LENGTH,
  ZIP64_LOCATOR_LENGTH,
} from './constants.ts';
import { decodeZipText } from './names.ts';
import { otherFormat } from './other-formats.ts';
import type { ZipSource } from './source.ts';

/** What the end records say about the central directory. */
export interface DirectoryEnd {
  /** Offset of the end record (zip64 record when present) in the file. */
  endOffset: number;
  /** Offset of the classic end record, where the archive's last bytes begin. */
  classicEndOffset: number;
  entryCount: number;
  /** Whether the count is a 16-bit field that may have wrapped past 65,535. */
  countMayWrap: boolean;
  directorySize: number;
  directoryOffset: number;
  comment: string;
  commentBytes: Uint8Array;
  zip64: boolean;
}

const MAX_COMMENT = UINT16_MAX;

function invalid(message: string): ZipfsError {
  return new ZipfsError(
    'ZIP_INVALID',
    `${message}. The file is not a readable zip archive; check that it is complete and really a zip.`,
  );
}

/**
 * Finds the end-of-central-directory record: the last signature in the file's
 * tail. Bytes after its comment are tolerated (trailing junk, as Info-ZIP and
 * Go allow), but a comment running past the end of the file means the file is
 * cut off, so it is refused rather than matched against an earlier signature.
 */
/** The error for a file with no end record: what it is instead, when its first bytes say. */
function notAZip(source: ZipSource, detail: string): ZipfsError {
  const other = otherFormat(source.read(0, 512).slice());
  if (other)
    return new ZipfsError(
      'ZIP_INVALID',
      `This is ${other.name}, not a zip archive; zipfs opens zip archives only. Unpack it with ${other.tool}.`,
    );
  return invalid(detail);
}

export function readDirectoryEnd(source: ZipSource): DirectoryEnd {
  if (source.size < END_OF_CENTRAL_DIR_LENGTH)
    throw notAZip(source, `File is only ${source.size} bytes, too short to hold an end-of-central-directory record`);
  const tailLength = Math.min(source.size, END_OF_CENTRAL_DIR_LENGTH + MAX_COMMENT + 1024);
  const tailStart = source.size - tailLength;
  const tail = source.read(tailStart, tailLength).slice();
  const reader = new ByteReader(tail);
  let at = tail.length - END_OF_CENTRAL_DIR_LENGTH;
  while (at >= 0 && (tail[at] !== 0x50 || reader.u32(at) !== SIG_END_OF_CENTRAL_DIR)) at--;
  if (at < 0) throw notAZip(source, 'No end-of-central-directory record found');
  if (at + END_OF_CENTRAL_DIR_LENGTH + reader.u16(at + 20) > tail.length)
    throw invalid('The archive comment runs past the end of the file, so the file is cut off');

  const classicEndOffset = tailStart + at;
  const disk = reader.u16(at + 4);
  const directoryDisk = reader.u16(at + 6);
  const end: DirectoryEnd = {
    endOffset: classicEndOffset,
    classicEndOffset,
    entryCount: reader.u16(at + 10),
    countMayWrap: true,
    directorySize: reader.u32(at + 12),
    directoryOffset: reader.u32(at + 16),
    comment: decodeZipText(tail.subarray(at + 22, at + 22 + reader.u16(at + 20))),
    commentBytes: tail.slice(at + 22, at + 22 + reader.u16(at + 20)),
    zip64: false,
  };
  const zip64 = readZip64End(source, classicEndOffset);
  if (zip64) return { ...end, ...zip64, countMayWrap: false, zip64: true };
  if (disk !== 0 || directoryDisk !== 0) throw invalid('Archive spans several disks, which zipfs does not support');
  return end;
}

/**
 * Reads the zip64 end record through its locator. A locator whose disk count is
 * not 1 is not a zip64 locator (its bytes can occur by chance in data before
 * the end record), as Go decides too. The record is looked for right before the
 * locator first, where writers put it, so archives behind a prefix stub still work.
 */
function readZip64End(
  source: ZipSource,
  classicEndOffset: number,
): Omit<DirectoryEnd, 'classicEndOffset' | 'comment' | 'commentBytes' | 'countMayWrap' | 'zip64'> | undefined {
  const locatorOffset = classicEndOffset - ZIP64_LOCATOR_LENGTH;
  if (locatorOffset < 0) return undefined;
  const locator = new ByteReader(source.read(locatorOffset, ZIP64_LOCATOR_LENGTH).slice());
  if (locator.bytes.length < ZIP64_LOCATOR_LENGTH || locator.u32(0) !== SIG_ZIP64_LOCATOR) return undefined;
  if (locator.u32(16) !== 1) return undefined;
  const stated = locator.u64(8);
  for (const candidate of [locatorOffset - ZIP64_END_OF_CENTRAL_DIR_LENGTH, stated]) {
    if (candidate < 0 || candidate + ZIP64_END_OF_CENTRAL_DIR_LENGTH > locatorOffset) continue;
    const record = new ByteReader(source.read(candidate, ZIP64_END_OF_CENTRAL_DIR_LENGTH).slice());
    if (record.u32(0) !== SIG_ZIP64_END_OF_CENTRAL_DIR) continue;
    return {
      endOffset: candidate,
      entryCount: record.u64(32),
      directorySize: record.u64(40),
      directoryOffset: record.u64(48),
    };
  }
  throw invalid('The zip64 end-of-central-directory record that the locator points to is missing');
}
