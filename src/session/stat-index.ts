/**
 * stat-index.bin, beside manifest.jsonl: what `status` needs to tell an untouched workspace by stat
 * alone (each entry's path, type and the stat its file is held to), in columns read without parsing,
 * as git's index is. A cache: the manifest stays the truth. The index names the manifest it was made
 * from by its length and CRC-32, so an index that is stale (the manifest rewritten, edited, taken
 * over), cut short or garbage is simply not used, and status reads the manifest as before. Its own
 * bytes are under a CRC-32 too. Content, not the manifest's mtime, is the stamp: every command
 * touches that mtime (session-store.ts), and a hand edit may keep the size and the inode.
 *
 * Layout, little-endian: a 32-byte header (magic, version, the manifest's length and CRC-32, the
 * entry count, the paths' byte count, the CRC-32 of everything after the header); then four float64
 * columns (size, mtime_ms, ctime_ms, ino), one flags byte per entry (type, and whether the stat is
 * the file's as zipfs last wrote or read it, or else the archive's size and mtime, proven by the
 * ctime fence), and the paths as UTF-8 joined by NUL (no path holds one).
 */
import fs from 'node:fs';
import path from 'node:path';
import { readFully, writeFully } from '../base/fd-io.ts';
import type { ItemType } from '../rules/item-type.ts';

export const STAT_INDEX = 'stat-index.bin';
const MAGIC = 0x5853465a; // "ZFSX"
const VERSION = 1;
const HEADER_BYTES = 32;
const COLUMNS = 4;
export const TYPE_FILE = 0;
export const TYPE_DIR = 1;
const TYPE_LINK = 2;
const RECORDED = 4;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** What the index takes of an entry record (manifest.ts, which writes the index through this file). */
export interface IndexedEntry {
  path: string;
  type: ItemType;
  size: number;
  mtime_ms: number;
  extracted?: { size: number; mtime_ms: number; ctime_ms: number; ino: number };
}

/** What names one manifest.jsonl: its length and the CRC-32 of its bytes. */
export interface ManifestStamp {
  size: number;
  crc32: number;
}

/** A manifest's entries as status compares them with the folder: column `i` is entry `i`'s. */
export interface StatIndex {
  count: number;
  paths: string[];
  /** The same paths as UTF-8, each ended by a NUL but the last: for a walk comparing names as bytes. */
  pathUtf8: Uint8Array;
  /** TYPE_FILE, TYPE_DIR or 2 (a link), plus RECORDED when the stat columns are the file's own. */
  flags: Uint8Array;
  size: Float64Array;
  mtime: Float64Array;
  ctime: Float64Array;
  ino: Float64Array;
}

/** A type's number in the flags byte. */
function typeNumber(type: ItemType): number {
  return type === 'file' ? TYPE_FILE : type === 'dir' ? TYPE_DIR : type === 'symlink' ? TYPE_LINK : -1;
}

/** An index's bytes with room for `count` entries and `paths` (joined), its columns to fill, and the seal. */
function layout(count: number, paths: string) {
  const pathBytes = Buffer.byteLength(paths);
  const flagsAt = HEADER_BYTES + COLUMNS * 8 * count;
  const bytes = new Uint8Array(flagsAt + count + pathBytes);
  Buffer.from(bytes.buffer, flagsAt + count).write(paths, 'utf8');
  const column = (n: number) => new Float64Array(bytes.buffer, HEADER_BYTES + n * 8 * count, count);
  return {
    bytes,
    flags: bytes.subarray(flagsAt, flagsAt + count),
    columns: [column(0), column(1), column(2), column(3)] as const,
    seal(stamp: ManifestStamp): Uint8Array {
      const view = new DataView(bytes.buffer);
      view.setUint32(0, MAGIC, true);
      view.setUint32(4, VERSION, true);
      view.setFloat64(8, stamp.size, true);
      view.setUint32(16, stamp.crc32, true);
      view.setUint32(20, count, true);
      view.setUint32(24, pathBytes, true);
      view.setUint32(28, Bun.hash.crc32(bytes.subarray(HEADER_BYTES)), true);
      return bytes;
    },
  };
}

/**
 * The index of `entries`, for the manifest stamped `stamp`; undefined for a type it does not know. (A path holding a
 * NUL would split in two: the reader finds one path too many and ignores the index.)
 */
export function statIndexBytes(entries: readonly IndexedEntry[], stamp: ManifestStamp): Uint8Array | undefined {
  const count = entries.length;
  const paths = new Array<string>(count);
  for (let i = 0; i < count; i++) paths[i] = entries[i]!.path;
  const { flags, columns, seal } = layout(count, paths.join('\0'));
  const [size, mtime, ctime, ino] = columns;
  for (let i = 0; i < count; i++) {
    const entry = entries[i]!;
    const type = typeNumber(entry.type);
    if (type < 0) return undefined;
    const recorded = entry.extracted;
    if (recorded) {
      flags[i] = type | RECORDED;
      size[i] = recorded.size;
      mtime[i] = recorded.mtime_ms;
      ctime[i] = recorded.ctime_ms;
      ino[i] = recorded.ino;
    } else {
      flags[i] = type;
      size[i] = entry.size;
      mtime[i] = entry.mtime_ms;
      ctime[i] = Number.NaN;
      ino[i] = Number.NaN;
    }
  }
  return seal(stamp);
}

/**
 * Writes the index of `entries` into `dir` (written beside and renamed into place, so a reader sees
 * a whole one); best effort: an index that cannot be written is one status does without.
 */
export function writeStatIndex(dir: string, entries: readonly IndexedEntry[], stamp: ManifestStamp): void {
  const bytes = statIndexBytes(entries, stamp);
  if (bytes) placeStatIndex(dir, bytes);
  else removeQuietly(path.join(dir, STAT_INDEX));
}

/** Best effort: a file that cannot be removed (a read-only folder) is no failure of the command. */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {}
}

/** Puts an index's bytes in `dir`: written beside and renamed over, so a reader sees the old one or the new one. */
function placeStatIndex(dir: string, bytes: Uint8Array): void {
  const target = path.join(dir, STAT_INDEX);
  const draft = `${target}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(draft, 'w');
    try {
      writeFully(fd, bytes);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(draft, target);
  } catch {
    removeQuietly(draft);
  }
}

/** The index in `dir` when it is whole and made from the manifest stamped `stamp`; else undefined. */
export function readStatIndex(dir: string, stamp: ManifestStamp): StatIndex | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path.join(dir, STAT_INDEX), 'r');
  } catch {
    return undefined;
  }
  try {
    const total = fs.fstatSync(fd).size;
    // An entry's line in the manifest is longer than its place here: a larger file is not this manifest's index.
    if (total < HEADER_BYTES || total > 2 * stamp.size + HEADER_BYTES) return undefined;
    // Its own ArrayBuffer, so the float64 columns can be viewed in place (aligned).
    const bytes = new Uint8Array(new ArrayBuffer(total));
    if (readFully(fd, bytes, 0) !== total) return undefined;
    return parseStatIndex(bytes, stamp);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function parseStatIndex(bytes: Uint8Array, stamp: ManifestStamp): StatIndex | undefined {
  const view = new DataView(bytes.buffer);
  const count = view.getUint32(20, true);
  const pathBytes = view.getUint32(24, true);
  const flagsAt = HEADER_BYTES + COLUMNS * 8 * count;
  if (
    view.getUint32(0, true) !== MAGIC ||
    view.getUint32(4, true) !== VERSION ||
    view.getFloat64(8, true) !== stamp.size ||
    view.getUint32(16, true) !== stamp.crc32 ||
    flagsAt + count + pathBytes !== bytes.length ||
    view.getUint32(28, true) !== Bun.hash.crc32(bytes.subarray(HEADER_BYTES))
  )
    return undefined;
  const flags = bytes.subarray(flagsAt, flagsAt + count);
  for (let i = 0; i < count; i++) if ((flags[i]! & 3) === 3 || flags[i]! > 7) return undefined;
  let joined: string;
  try {
    joined = strictUtf8.decode(bytes.subarray(flagsAt + count)); // UTF-8, as written: the walk compares its bytes
  } catch {
    return undefined;
  }
  const paths = count === 0 ? [] : joined.split('\0');
  if (paths.length !== count) return undefined;
  const column = (n: number) => new Float64Array(bytes.buffer, HEADER_BYTES + n * 8 * count, count);
  const pathUtf8 = bytes.subarray(flagsAt + count);
  return { count, paths, pathUtf8, flags, size: column(0), mtime: column(1), ctime: column(2), ino: column(3) };
}

/**
 * Writes `index` again with its entries in `order` (positions in it, each once: the order a scan
 * found them in, which status then walks without a lookup per path), for the same manifest.
 */
export function writeStatIndexInOrder(
  dir: string,
  index: StatIndex,
  order: readonly number[],
  stamp: ManifestStamp,
): void {
  const count = order.length;
  if (count !== index.count) return;
  const paths = new Array<string>(count);
  for (let k = 0; k < count; k++) paths[k] = index.paths[order[k]!]!;
  const { flags, columns, seal } = layout(count, paths.join('\0'));
  const from = [index.size, index.mtime, index.ctime, index.ino] as const;
  for (let k = 0; k < count; k++) {
    const i = order[k]!;
    flags[k] = index.flags[i]!;
    for (let c = 0; c < COLUMNS; c++) columns[c]![k] = from[c]![i]!;
  }
  placeStatIndex(dir, seal(stamp));
}

/** Whether index entry `i` keeps its own stat (as zipfs last wrote or read the file). */
export function hasRecordedStat(index: StatIndex, i: number): boolean {
  return (index.flags[i]! & RECORDED) !== 0;
}

const CHUNK_BYTES = 1 << 18;

/** A manifest as its index is checked against it: its stamp, and line 1 (the session record) from the same read. */
export interface ManifestLook {
  stamp: ManifestStamp;
  /** Undefined when the manifest has no line end (then the whole read says what is wrong). */
  firstLine: string | undefined;
}

/**
 * Reads `manifestPath` once, in chunks into one buffer (a quarter of the time of reading it whole): its stamp and
 * line 1. Undefined when it cannot be read (the full read says why).
 */
export function lookAtManifest(manifestPath: string): ManifestLook | undefined {
  let fd: number;
  try {
    fd = fs.openSync(manifestPath, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let crc = 0;
    let size = 0;
    // Line 1 so far, while it runs past the chunks read (a session record listing many links).
    let head: Buffer[] | undefined = [];
    let firstLine: string | undefined;
    for (let n; (n = fs.readSync(fd, chunk, 0, CHUNK_BYTES, size)) > 0; size += n) {
      if (head) {
        const end = chunk.subarray(0, n).indexOf(0x0a);
        head.push(Buffer.from(chunk.subarray(0, end >= 0 ? end : n)));
        if (end >= 0) {
          firstLine = Buffer.concat(head).toString('utf8');
          head = undefined;
        }
      }
      crc = Bun.hash.crc32(chunk.subarray(0, n), crc);
    }
    return { stamp: { size, crc32: crc }, firstLine };
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}
