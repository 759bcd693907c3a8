import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { FileSource, locateEntryData, readCentralDirectory, readEntryData, type CentralDirectory, type ZipSource } from '../zip/index.ts';
import { sessionPaths, workspacesDir } from './data-dir.ts';
import { printable } from './entry-paths.ts';
import { planExtraction, type ExtractionPlan, type PlannedItem } from './extraction-plan.ts';
import { MANIFEST_FORMAT, entryRecord, fingerprintSource, serializeManifest, type EntryRecord, type SessionRecord } from './manifest.ts';
import { assertValidName, deriveName, freeName } from './session-name.ts';
import { listSessions, loadSession, type Session } from './session-store.ts';
import { humanBytes } from '../format/units.ts';
import { createStaging, discardStaging, releaseStaging, removeDeadStaging } from './staging.ts';

export type Progress = (done: number, total: number, message?: string) => void;

export interface OpenRequest {
  zipPath: string;
  name?: string;
  home: string;
  limits: Limits;
  progress?: Progress;
}

/**
 * `open`: extracts an archive into a new session. Everything is written into
 * a hidden staging folder that becomes the session by one rename at the end,
 * so a failed or interrupted open leaves no session and no folder.
 */
export async function openArchive(request: OpenRequest): Promise<Session> {
  const zipPath = path.resolve(request.zipPath);
  const source = openSource(zipPath);
  try {
    const directory = readCentralDirectory(source);
    const plan = planExtraction(directory, request.limits);
    if (request.name !== undefined) {
      assertValidName(request.name);
      assertNameFree(request.home, request.name);
    }
    assertRoomForSession(request.home, request.limits, plan.totalBytes);
    removeDeadStaging(request.home);
    const staging = createStaging(request.home);
    try {
      assertDiskSpace(staging, plan.totalBytes);
      const entries = await extract(source, directory, plan, path.join(staging, 'contents'), request.progress);
      const fingerprint = fingerprintSource(source, directory, zipPath);
      const record: SessionRecord = {
        kind: 'session',
        format: MANIFEST_FORMAT,
        id: crypto.randomUUID(),
        name: '',
        source_path: zipPath,
        source: fingerprint,
        created_at: new Date().toISOString(),
        file_count: plan.fileCount,
        dir_count: plan.dirCount,
        extracted_size_bytes: plan.totalBytes,
        symlinks: plan.items.filter((i) => i.type === 'symlink').map((i) => i.path),
      };
      const name = publish(request.home, staging, record, entries, request.name);
      return loadSession(request.home, name)!;
    } catch (error) {
      discardStaging(staging);
      throw error;
    }
  } finally {
    source.close();
  }
}

function openSource(zipPath: string): FileSource {
  let stats: fs.Stats;
  try {
    stats = fs.statSync(zipPath);
  } catch {
    throw new ZipfsError('ZIP_NOT_FOUND', `No file at ${zipPath}; check the path (relative paths are resolved from ${process.cwd()}).`);
  }
  if (stats.isDirectory()) throw new ZipfsError('ZIP_NOT_FOUND', `${zipPath} is a folder, not a zip file; give the path of a .zip file.`);
  try {
    return new FileSource(zipPath);
  } catch (error) {
    throw new ZipfsError('ZIP_NOT_FOUND', `${zipPath} cannot be read (${(error as Error).message}); check its permissions.`);
  }
}

function assertNameFree(home: string, name: string): void {
  if (fs.existsSync(sessionPaths(home, name).dir)) {
    throw new ZipfsError('NAME_COLLISION', `A session named "${name}" is already open; choose another name, or close that session first (zipfs close ${name}).`);
  }
}

/** The resource limits: how many sessions, and how many bytes all workspaces may hold (as extracted). */
function assertRoomForSession(home: string, limits: Limits, adding: number): void {
  const sessions = listSessions(home);
  if (sessions.length >= limits.maxSessions) {
    throw new ZipfsError('LIMIT_EXCEEDED', `${sessions.length} sessions are open and the limit is ${limits.maxSessions}. Close some (zipfs close NAME), prune old ones (zipfs prune --stale 7d), or raise ZIPFS_MAX_SESSIONS.`);
  }
  const used = sessions.reduce((sum, s) => sum + s.record.extracted_size_bytes, 0);
  if (used + adding > limits.maxTotalBytes) {
    throw new ZipfsError('LIMIT_EXCEEDED', `Workspaces hold ${humanBytes(used)} and this archive adds ${humanBytes(adding)}, over the ${humanBytes(limits.maxTotalBytes)} limit. Close or prune sessions, or raise ZIPFS_MAX_TOTAL_BYTES.`);
  }
}

function assertDiskSpace(dir: string, needed: number): void {
  let free: number;
  try {
    const stats = fs.statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    return; // No statfs here: extraction will still stop cleanly on ENOSPC.
  }
  if (needed > free) {
    throw new ZipfsError('LIMIT_EXCEEDED', `The archive expands to ${needed} bytes but only ${free} bytes are free under ${dir}; free some space or set ZIPFS_HOME to a larger disk.`);
  }
}

/** Gives the event loop a turn now and then, so progress notifications go out while a large archive extracts. */
const YIELD_EVERY_MS = 50;

/** Writes every planned item and returns the manifest entry records, in central-directory order. */
async function extract(source: ZipSource, directory: CentralDirectory, plan: ExtractionPlan, root: string, progress?: Progress): Promise<EntryRecord[]> {
  fs.mkdirSync(root);
  for (const dir of plan.directories) fs.mkdirSync(path.join(root, dir), { recursive: true });

  const records = new Array<EntryRecord>(plan.items.length);
  // Read in offset order: the archive is then read front to back, once.
  const ordered = [...plan.items].sort((a, b) => a.entry.localHeaderOffset - b.entry.localHeaderOffset);
  let done = 0;
  let lastYield = Date.now();
  for (let i = 0; i < ordered.length; i++) {
    const item = ordered[i]!;
    const limit = i + 1 < ordered.length ? ordered[i + 1]!.entry.localHeaderOffset : directory.centralStart;
    records[item.entry.index] = extractItem(source, item, root, limit);
    done += item.type === 'dir' ? 0 : item.entry.uncompressedSize;
    progress?.(done, plan.totalBytes, item.path);
    if (Date.now() - lastYield > YIELD_EVERY_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = Date.now();
    }
  }
  // Writing files touched their folders' times; restore the archive's times last, deepest first.
  for (const item of [...plan.items].reverse()) {
    if (item.type === 'dir') fs.utimesSync(path.join(root, item.path), item.entry.modifiedAt, item.entry.modifiedAt);
  }
  return records;
}

function extractItem(source: ZipSource, item: PlannedItem, root: string, nextOffset: number): EntryRecord {
  const { entry } = item;
  const record = entryRecord(entry, item.path, item.type);
  if (item.type === 'dir') return record;

  const span = locateEntryData(source, entry);
  if (span.dataEnd > nextOffset) {
    throw new ZipfsError('ZIP_BOMB_DETECTED', `Entry "${printable(entry.name)}" has data running into the next entry or the central directory (overlapping entries, a zip-bomb construction); the archive was refused.`);
  }
  const data = readEntryData(source, entry, span);
  // A symlink entry becomes a regular file holding its target: never a live link.
  const mode = item.type === 'symlink' ? 0o644 : ((entry.unixMode ?? 0o644) & 0o777) | 0o600;
  const target = path.join(root, item.path);
  let fd: number;
  try {
    fd = fs.openSync(target, 'wx', mode);
  } catch (error) {
    if (isSystemError(error, 'ENAMETOOLONG', 'EILSEQ', 'EINVAL')) {
      throw new ZipfsError('ZIP_INVALID', `Entry "${printable(entry.name)}" cannot be created on this file system (${(error as Error).message}); the archive was not opened.`);
    }
    throw error;
  }
  try {
    for (let written = 0; written < data.length; ) written += fs.writeSync(fd, data, written, data.length - written);
    fs.futimesSync(fd, entry.modifiedAt, entry.modifiedAt);
    const stats = fs.fstatSync(fd);
    record.extracted = { size: stats.size, mtime_ms: stats.mtimeMs, ctime_ms: stats.ctimeMs, ino: stats.ino };
  } finally {
    fs.closeSync(fd);
  }
  return record;
}

/** Writes the manifest and renames the staging folder into place under a free name. */
function publish(home: string, staging: string, record: SessionRecord, entries: EntryRecord[], explicitName: string | undefined): string {
  const taken = (name: string) => fs.existsSync(sessionPaths(home, name).dir);
  const base = explicitName ?? deriveName(record.source_path);
  for (;;) {
    const name = explicitName ?? freeName(base, taken);
    fs.writeFileSync(path.join(staging, 'manifest.jsonl'), serializeManifest({ ...record, name }, entries));
    try {
      fs.renameSync(staging, path.join(workspacesDir(home), name));
      releaseStaging(staging);
      return name;
    } catch (error) {
      // Another open took the name between our check and the rename.
      if (!isSystemError(error, 'ENOTEMPTY', 'EEXIST')) throw error;
      if (explicitName !== undefined) assertNameFree(home, name);
    }
  }
}
