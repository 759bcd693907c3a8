/** One central-directory record, decoded, with the positions sync needs to copy it verbatim. */
export interface ZipEntry {
  /** Position in the central directory, from 0. */
  index: number;
  /** Decoded name exactly as stored (separators untouched). */
  name: string;
  rawName: Uint8Array;
  isDirectory: boolean;
  isSymlink: boolean;
  versionMadeBy: number;
  versionNeeded: number;
  flags: number;
  method: number;
  dosTime: number;
  dosDate: number;
  /** From the extended-timestamp field when present, else the DOS time read as local time. */
  modifiedAt: Date;
  crc32: number;
  compressedSize: number;
  uncompressedSize: number;
  internalAttributes: number;
  externalAttributes: number;
  /** Unix mode (type and permission bits) when the creator recorded one. */
  unixMode: number | undefined;
  comment: string;
  /** The central record's extra-field block and comment as stored, for rewriting an entry faithfully. */
  rawExtra: Uint8Array;
  rawComment: Uint8Array;
  /** Absolute file offset of the local header (the archive's base offset applied). */
  localHeaderOffset: number;
  /** Absolute file offset and length of this entry's central-directory record. */
  centralOffset: number;
  centralLength: number;
}

/** What reading an entry's data needs: small enough to send to a worker thread. */
export type EntryLocation = Pick<
  ZipEntry,
  'name' | 'flags' | 'method' | 'compressedSize' | 'uncompressedSize' | 'crc32' | 'localHeaderOffset'
> &
  Partial<Pick<ZipEntry, 'dosTime' | 'rawExtra'>>;

export interface CentralDirectory {
  entries: ZipEntry[];
  comment: string;
  /** The archive comment as stored, for writing it back unchanged. */
  commentBytes: Uint8Array;
  /** Bytes before the archive proper (a self-extractor stub, a script). */
  baseOffset: number;
  /** Absolute offsets of the central directory and of the end records after it. */
  centralStart: number;
  centralEnd: number;
  /** Whether the end records are zip64. */
  zip64: boolean;
}
