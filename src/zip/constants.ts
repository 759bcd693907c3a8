/** Record signatures and field values from PKWARE's APPNOTE.TXT. */

export const SIG_LOCAL_HEADER = 0x04034b50;
export const SIG_CENTRAL_HEADER = 0x02014b50;
export const SIG_END_OF_CENTRAL_DIR = 0x06054b50;
export const SIG_ZIP64_END_OF_CENTRAL_DIR = 0x06064b50;
export const SIG_ZIP64_LOCATOR = 0x07064b50;
export const SIG_DATA_DESCRIPTOR = 0x08074b50;

export const LOCAL_HEADER_LENGTH = 30;
export const CENTRAL_HEADER_LENGTH = 46;
export const END_OF_CENTRAL_DIR_LENGTH = 22;
export const ZIP64_END_OF_CENTRAL_DIR_LENGTH = 56;
export const ZIP64_LOCATOR_LENGTH = 20;

export const FLAG_ENCRYPTED = 0x0001;
export const FLAG_DATA_DESCRIPTOR = 0x0008;
/** "Compressed patched data": a PKWARE extension no common reader supports. */
export const FLAG_PATCHED = 0x0020;
export const FLAG_STRONG_ENCRYPTION = 0x0040;
export const FLAG_UTF8 = 0x0800;
/** Flags that change how an entry is read: local and central headers must agree on them. */
export const FLAGS_THAT_MATTER = 0x0001 | 0x0008 | 0x0020 | 0x0040 | 0x0800;
/** The newest "version needed to extract" APPNOTE defines (6.3); readers refuse higher ones. */
export const MAX_VERSION_NEEDED = 63;

export const METHOD_STORED = 0;
export const METHOD_DEFLATED = 8;

export const EXTRA_ZIP64 = 0x0001;
export const EXTRA_EXTENDED_TIMESTAMP = 0x5455;
export const EXTRA_UNICODE_PATH = 0x7075;
export const EXTRA_NTFS = 0x000a;

/** "Version made by" host systems whose external attributes carry Unix mode bits. */
export const HOST_UNIX = 3;
export const HOST_MACOS = 19;

export const UINT16_MAX = 0xffff;
export const UINT32_MAX = 0xffffffff;

// Unix file-type bits of an entry's external attributes: the same as a stat's (base/file-modes.ts).
export { S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG, S_IFSOCK } from '../base/file-modes.ts';

/** Names for the methods people meet, so an error can say what it saw. */
export const METHOD_NAMES: Record<number, string> = {
  0: 'stored',
  8: 'deflate',
  9: 'deflate64',
  12: 'bzip2',
  14: 'lzma',
  93: 'zstd',
  95: 'xz',
  98: 'ppmd',
  99: 'aes-encrypted',
};
