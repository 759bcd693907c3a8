/**
 * manifest.jsonl: line 1 describes the session, every further line one
 * archive entry, in central-directory order. JSON Lines keeps each record
 * independent, so the session record can be read without parsing the rest.
 */
import type { RemoteFacts } from '../remote/remote-url.ts';
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { writeFully } from '../base/fd-io.ts';
import { sessionRecordProblem } from './manifest-check.ts';
import type { CodePage, ZipEntry } from '../zip/index.ts';
import type { ItemType } from '../rules/item-type.ts';
import { invocation } from '../base/message-marks.ts';
import { writeStatIndex, type ManifestStamp } from './stat-index.ts';
import type { SessionOwner } from './owner.ts';

export const MANIFEST_FORMAT = 1;

/**
 * A copy of the base's central directory, kept beside manifest.jsonl where the folder lacks entries (lazy-entries.ts).
 */
export const DIRECTORY_COPY = 'central.bin';

/** What identifies the source zip as it was when last read or written. */
export interface SourceFingerprint {
  size: number;
  mtime_ms: number;
  /** SHA-256 of the central directory and end records: it covers every entry's
   * name, sizes, CRC-32 and offset, so any rewrite of the archive changes it. */
  directory_sha256: string;
}

export interface LazyFacts {
  /** Entries in central.bin. */
  entries: number;
  base_offset: number;
  central_start: number;
  /** Entries the workspace's folder cannot hold (a case collision, a Windows name), by index: they stay in the zip. */
  unrepresentable?: { index: number; reason: string }[];
  /** central.bin's length and CRC-32, to know it again (lazy-integrity.ts); absent in older sessions. */
  central_bytes?: number;
  central_crc32?: number;
  /**
   * Every entry's data was checked since the session began (at a sync: copy-check.ts): later syncs copy without reading
   * it again.
   */
  data_checked?: true;
}

export interface SessionRecord {
  kind: 'session';
  format: number;
  id: string;
  name: string;
  source_path: string;
  source: SourceFingerprint;
  created_at: string;
  file_count: number;
  dir_count: number;
  extracted_size_bytes: number;
  /** A ctime after every file open wrote and not after any later change (see ctime-fence.ts). A file
   * whose ctime is older, and whose size and mtime are as extracted, is untouched: open need not
   * stat every file it writes. Absent in manifests of older versions: their files are checked by content. */
  ctime_fence_ms?: number;
  /** Workspace paths of entries that are symlinks in the archive (regular files here). */
  symlinks: string[];
  /**
   * The workspace's folder does not tell names apart by case (probed at open: case-probe.ts); absent in older
   * manifests, read as false.
   */
  case_insensitive?: boolean;
  /** A lazy session: entries not listed below are not extracted, and central.bin holds them all (lazy-entries.ts). */
  lazy?: LazyFacts;
  /** The process of the job that opened it (owner.ts); absent in older manifests, whose owner is unknown. */
  owner?: SessionOwner;
  /**
   * The encoding open was asked to read names without the UTF-8 flag in (zip/names.ts): every later read of the zip
   * reads them so. Absent: UTF-8 when valid, else CP437.
   */
  name_encoding?: CodePage;
  /**
   * An archive on a server (DESIGN.md, "Remote stores"): source_path is its local mirror, and this its URL (no
   * credentials) and the ETag of the version the base is.
   */
  remote?: RemoteFacts;
}

export interface EntryRecord {
  kind: 'entry';
  index: number;
  name: string;
  path: string;
  type: ItemType;
  size: number;
  compressed_size: number;
  crc32: number;
  method: number;
  flags: number;
  dos_time: number;
  dos_date: number;
  mtime_ms: number;
  /** Unix mode bits when the creator recorded them. */
  mode: number | null;
  external_attributes: number;
  local_header_offset: number;
  central_offset: number;
  /** The extracted file as it was left on disk, so a later status can tell an untouched file by stat alone. */
  extracted?: { size: number; mtime_ms: number; ctime_ms: number; ino: number };
}

/**
 * Where a session's zip is, as the MCP server's roots judge it: a remote archive's URL, else its path (source_path of
 * a remote session is its local mirror, in the data folder, which no root holds).
 */
export function zipPlace(record: SessionRecord): string {
  return record.remote?.url ?? record.source_path;
}

/** The manifest line for one archive entry (without the extracted file's stat). */
export function entryRecord(entry: ZipEntry, path: string, type: ItemType): EntryRecord {
  return {
    kind: 'entry',
    index: entry.index,
    name: entry.name,
    path,
    type,
    size: entry.uncompressedSize,
    compressed_size: entry.compressedSize,
    crc32: entry.crc32,
    method: entry.method,
    flags: entry.flags,
    dos_time: entry.dosTime,
    dos_date: entry.dosDate,
    mtime_ms: entry.modifiedAt.getTime(),
    mode: entry.unixMode ?? null,
    external_attributes: entry.externalAttributes,
    local_header_offset: entry.localHeaderOffset,
    central_offset: entry.centralOffset,
  };
}

/** Bytes gathered before each write: a manifest of 100,000 entries is ~40 MB, which as one string
 * (and again as its UTF-8 bytes) was the peak of open and sync on such archives. 64 KiB, not 1 MiB: as fast (a
 * manifest of 100,000 entries: no difference measured), and 1 MB less for every sync to allocate. */
const MANIFEST_BATCH_BYTES = 1 << 16;

/**
 * Writes a manifest to `manifestPath` through one reused buffer, so memory does not grow with the entry count; and,
 * for an eager session, its stat index beside it (stat-index.ts), stamped with the bytes written.
 */
export function writeManifest(manifestPath: string, session: SessionRecord, entries: EntryRecord[]): void {
  const fd = fs.openSync(manifestPath, 'w');
  const batch = Buffer.allocUnsafe(MANIFEST_BATCH_BYTES);
  let used = 0;
  let size = 0;
  let crc = 0;
  const write = (bytes: Uint8Array) => {
    writeFully(fd, bytes);
    size += bytes.length;
    crc = Bun.hash.crc32(bytes, crc);
  };
  const flush = () => {
    write(batch.subarray(0, used));
    used = 0;
  };
  const put = (line: string) => {
    const most = line.length * 3 + 1; // UTF-8 takes at most 3 bytes per UTF-16 unit
    if (used + most > batch.length) flush();
    if (most > batch.length) return write(Buffer.from(`${line}\n`, 'utf8'));
    used += batch.write(line, used, 'utf8');
    batch[used++] = 0x0a;
  };
  try {
    put(JSON.stringify(session));
    for (const entry of entries) put(JSON.stringify(entry));
    flush();
  } finally {
    fs.closeSync(fd);
  }
  // A lazy session's status reads its lines and directory as before: its index would go unread.
  if (!session.lazy) writeStatIndex(path.dirname(manifestPath), entries, { size, crc32: crc });
}

/**
 * A lazy session's manifest listing `added` entries too (extracted, or deleted without being
 * extracted), under `manifest.session`: written beside the old one and renamed over it, so a
 * reader sees the old manifest or the new one.
 */
export function listMore(session: { manifest: string }, manifest: ManifestLines, added: EntryRecord[]): void {
  const next = `${session.manifest}.${process.pid}.tmp`;
  writeManifest(
    next,
    manifest.session,
    [...manifest.entries, ...added].sort((a, b) => a.index - b.index),
  );
  fs.renameSync(next, session.manifest);
}

/** A session record, or why the manifest holds none that this zipfs can use. */
export type SessionHead = { record: SessionRecord; problem?: undefined } | { record?: undefined; problem: string };

/** Reads only the first line, so listing sessions costs one small read per session. */
export function readSessionHead(manifestPath: string): SessionHead {
  let fd: number;
  try {
    fd = fs.openSync(manifestPath, 'r');
  } catch (error) {
    if (isSystemError(error, 'ENOENT', 'ENOTDIR')) return { problem: 'it has no manifest.jsonl' };
    throw error;
  }
  try {
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let position = 0;
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, position);
      if (n === 0) break;
      const newline = chunk.subarray(0, n).indexOf(0x0a);
      chunks.push(Buffer.from(chunk.subarray(0, newline >= 0 ? newline : n)));
      if (newline >= 0) break;
      position += n;
    }
    const line = Buffer.concat(chunks).toString('utf8');
    if (line.trim() === '') return { problem: 'its manifest.jsonl is empty' };
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return { problem: 'line 1 of its manifest.jsonl is not valid JSON' };
    }
    const problem = sessionRecordProblem(value, MANIFEST_FORMAT);
    return problem ? { problem: `line 1 of its manifest.jsonl: ${problem}` } : { record: value as SessionRecord };
  } catch (error) {
    if (isSystemError(error, 'EISDIR')) return { problem: 'its manifest.jsonl is a folder' };
    throw error;
  } finally {
    fs.closeSync(fd);
  }
}

/** The session record, or undefined when the manifest holds none that this zipfs can use. */
export function readSessionRecord(manifestPath: string): SessionRecord | undefined {
  return readSessionHead(manifestPath).record;
}

export interface ManifestLines {
  session: SessionRecord;
  /**
   * Every entry of an eager session; of a lazy one, those extracted (or deleted without being extracted), in index
   * order.
   */
  entries: EntryRecord[];
  /** The length and CRC-32 of the text read (stat-index.ts), when asked for. */
  stamp?: ManifestStamp;
}

/** SESSION_DAMAGED for the session in `dir`, with the way out: its files stay until the caller removes it. */
export function sessionDamaged(dir: string, problem: string): ZipfsError {
  const name = path.basename(dir);
  return new ZipfsError(
    'SESSION_DAMAGED',
    `Session ${quote(name)} is damaged: ${problem}. Its files are still in ${path.join(dir, 'contents')}; copy ` +
      `out what you need, then remove the session with ${invocation('close', { session: name, force: true })}.`,
  );
}
