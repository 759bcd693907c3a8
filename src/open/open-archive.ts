import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, diskFull, isSystemError, pathUnusable, type ErrorCode } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { FileSource, readCentralDirectory, type CentralDirectory } from '../zip/index.ts';
import { workspacesDir } from '../session/data-dir.ts';
import { workspaceTarget } from './workspace-rules.ts';
import { taskCost, writeFileTask, type FileTask } from './extract-files.ts';
import type { ExtractJob, ExtractReport } from './extract-worker.ts';
import { checkArchive } from './archive-checks.ts';
import type { ExtractionPlan } from './extraction-plan.ts';
import { ctimeFence } from './ctime-fence.ts';
import { releasePhaseGarbage } from '../memory.ts';
import { eventLoopTurns } from '../event-loop-turns.ts';
import { MANIFEST_FORMAT, entryRecord, type EntryRecord, type SessionRecord } from '../session/manifest.ts';
import { fingerprintSource } from '../session/source-state.ts';
import { assertValidName } from '../session/session-name.ts';
import { listSessions, type Session } from '../session/session-store.ts';
import { assertNameFree, publishOnce, publishedSession } from './publish-session.ts';
import { createStaging, discardStaging, removeDeadStaging } from './staging.ts';
import { workerPath } from '../worker-path.ts';
import { invocation, param } from '../message-marks.ts';
import { assertRoomInWorkspaces } from '../session/workspace-room.ts';
import { openLazy } from './open-lazy.ts';
import type { SessionOwner } from '../session/owner.ts';
import { claimName } from '../session/take-over.ts';

export type Progress = (done: number, total: number, message?: string) => void;

export interface OpenRequest {
  zipPath: string;
  name?: string;
  home: string;
  limits: Limits;
  progress?: Progress;
  /** Cancellation: extraction stops, the staging folder is removed, no session is made. */
  signal?: AbortSignal;
  /** Where no file is yet, open an empty session instead of ZIP_NOT_FOUND. */
  create?: boolean;
  /** Extract nothing: a lazy session, made from the central directory alone (open-lazy.ts). */
  lazy?: boolean;
  /** Extract only the entries these paths or globs name, and leave the rest lazy. */
  only?: string[];
  /** The job's process, recorded as the session's owner (session/owner.ts). */
  owner?: SessionOwner;
  /**
   * No name was asked for: when another open of this zip published a session while this one
   * extracted, that session is the answer (`shared`), as it is for an open that comes after.
   */
  share?: boolean;
}

/**
 * A new session, and the warning when an orphaned session of the same name was taken over to make
 * it; `shared` when another open of the zip made one meanwhile and this open answers with it.
 */
export type Opened = Session & { tookOver?: string; shared?: true };

/**
 * `open`: extracts an archive into a new session. Everything is written into
 * a hidden staging folder that becomes the session by one rename at the end,
 * so a failed or interrupted open leaves no session and no folder. With
 * `create`, a path where no file is yet opens an empty session whose first
 * sync writes the archive.
 */
export async function openArchive(request: OpenRequest): Promise<Opened> {
  const zipPath = path.resolve(request.zipPath);
  let tookOver: string | undefined;
  if (request.name !== undefined) {
    assertValidName(request.name);
    tookOver = await claimName(request.home, request.name, request.owner);
  }
  const session = await openNamed(request, zipPath);
  return tookOver ? { ...session, tookOver } : session;
}

async function openNamed(request: OpenRequest, zipPath: string): Promise<Opened> {
  if (request.create && !zipExists(zipPath)) return createArchiveSession(request, zipPath);
  if (request.lazy || (request.only?.length ?? 0) > 0) return openLazy(request, zipPath);
  const source = openSource(zipPath);
  try {
    const directory = readCentralDirectory(source);
    const target = workspaceTarget(request.home, true);
    const plan = checkArchive(source, directory, request.limits, target);
    const published = await inStaging(request, plan.totalBytes, async (staging) => {
      assertDiskSpace(staging, plan.totalBytes);
      const entries = await extract(source, directory, plan, path.join(staging, 'contents'), request.limits.threads, request.progress, request.signal);
      releasePhaseGarbage(entries.length);
      request.signal?.throwIfAborted();
      const symlinks = plan.items.filter((i) => i.type === 'symlink').map((i) => i.path);
      const record = sessionRecord(zipPath, fingerprintSource(source, directory), staging, { files: plan.fileCount, dirs: plan.dirCount, bytes: plan.totalBytes, symlinks }, target.rules.caseInsensitive === true, request.owner);
      return publishOnce(request, staging, record, entries);
    });
    return publishedSession(request.home, published);
  } finally {
    source.close();
  }
}

/** An empty session for an archive still to be written (its fingerprint's size -1 says so: sync-archive.ts, isNewArchive). */
async function createArchiveSession(request: OpenRequest, zipPath: string): Promise<Opened> {
  // Missing folders on the way are made by the first sync, with the archive; a file where one must go cannot be.
  let folder = path.dirname(zipPath);
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ZipfsError('ZIP_NOT_FOUND', `Cannot create ${zipPath}: ${folder} is a file, not a folder. Give another path.`);
  }
  const published = await inStaging(request, 0, (staging) => {
    fs.mkdirSync(path.join(staging, 'contents'));
    const record = sessionRecord(zipPath, { size: -1, mtime_ms: 0, directory_sha256: '' }, staging, { files: 0, dirs: 0, bytes: 0, symlinks: [] }, workspaceTarget(request.home, true).rules.caseInsensitive === true, request.owner);
    return publishOnce(request, staging, record, []);
  });
  return publishedSession(request.home, published);
}

/**
 * Runs `fill` on a fresh staging folder (prepareStaging's checks first), which it turns into a
 * session (publish); if it fails, the folder goes, so a failed open leaves nothing behind.
 */
export async function inStaging<T>(request: OpenRequest, bytes: number, fill: (staging: string) => T | Promise<T>): Promise<T> {
  const staging = prepareStaging(request, bytes);
  try {
    return await fill(staging);
  } catch (error) {
    discardStaging(staging);
    // A write to a descriptor says ENOSPC without a path: name the disk the workspaces are on.
    if (isSystemError(error, 'ENOSPC', 'EDQUOT')) throw diskFull(error as NodeJS.ErrnoException, workspacesDir(request.home));
    throw error;
  }
}

/** The checks before anything is written (name, session and byte limits), then a fresh staging folder. */
function prepareStaging(request: OpenRequest, bytes: number): string {
  if (request.name !== undefined) {
    assertValidName(request.name);
    assertNameFree(request.home, request.name);
  }
  assertRoomForSession(request.home, request.limits, bytes);
  removeDeadStaging(request.home);
  return createStaging(request.home);
}

export function sessionRecord(zipPath: string, source: SessionRecord['source'], staging: string, counts: { files: number; dirs: number; bytes: number; symlinks: string[] }, caseInsensitive: boolean, owner: SessionOwner | undefined): SessionRecord {
  return {
    kind: 'session',
    format: MANIFEST_FORMAT,
    id: globalThis.crypto.randomUUID(),
    name: '',
    source_path: zipPath,
    source,
    created_at: new Date().toISOString(),
    file_count: counts.files,
    dir_count: counts.dirs,
    extracted_size_bytes: counts.bytes,
    ctime_fence_ms: ctimeFence(staging),
    symlinks: counts.symlinks,
    case_insensitive: caseInsensitive,
    ...(owner ? { owner } : {}),
  };
}

/** Whether something is at `zipPath`; a path no file can ever be at (too long, a loop of links) is refused, not taken for a free place. */
function zipExists(zipPath: string): boolean {
  try {
    fs.statSync(zipPath);
    return true;
  } catch (error) {
    if (isSystemError(error, 'ENAMETOOLONG', 'ELOOP')) throw pathUnusable(error);
    return false;
  }
}

export function openSource(zipPath: string): FileSource {
  if (!zipExists(zipPath)) {
    throw new ZipfsError('ZIP_NOT_FOUND', `No file at ${zipPath}; check the path (relative paths are resolved from ${process.cwd()}), or pass ${param('create')} to start a new archive there.`);
  }
  try {
    return new FileSource(zipPath);
  } catch (error) {
    if (error instanceof ZipfsError) throw error; // a folder, a FIFO, a device: refused by kind, nothing read
    throw new ZipfsError('ZIP_NOT_FOUND', `${zipPath} cannot be read (${(error as Error).message}); check its permissions.`);
  }
}

/** The resource limits: how many sessions, and how many bytes all workspaces may hold (as extracted). */
function assertRoomForSession(home: string, limits: Limits, adding: number): void {
  const sessions = listSessions(home);
  if (sessions.length >= limits.maxSessions) {
    throw new ZipfsError('LIMIT_EXCEEDED', `${sessions.length} sessions are open and the limit is ${limits.maxSessions}. Close some (${invocation('close', { session: 'NAME' })}), prune old ones (${invocation('prune', { stale: '7d' })}), or raise ZIPFS_MAX_SESSIONS.`);
  }
  assertRoomInWorkspaces(home, limits, adding, 'this archive adds', sessions);
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

/** Below these, a second thread costs more to start than it saves. */
const PARALLEL_MIN_BYTES = 16 * 1024 * 1024;
const PARALLEL_MIN_FILES = 2000;

/**
 * Writes every planned item and returns the manifest entry records, in
 * central-directory order. Entries are read in offset order, so the archive is
 * read front to back; large archives are split into two contiguous shares of
 * about equal cost, one for this thread and one for a worker, to use both cores.
 */
async function extract(source: FileSource, directory: CentralDirectory, plan: ExtractionPlan, root: string, threads: number, progress?: Progress, signal?: AbortSignal): Promise<EntryRecord[]> {
  fs.mkdirSync(root);
  for (const dir of plan.directories) fs.mkdirSync(path.join(root, dir), { recursive: true });

  const ordered = [...plan.items].sort((a, b) => a.entry.localHeaderOffset - b.entry.localHeaderOffset);
  const tasks: FileTask[] = [];
  ordered.forEach((item, i) => {
    if (item.type === 'dir') return;
    const { entry } = item;
    tasks.push({
      entry: { name: entry.name, flags: entry.flags, method: entry.method, compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize, crc32: entry.crc32, localHeaderOffset: entry.localHeaderOffset },
      path: item.path,
      symlink: item.type === 'symlink',
      unixMode: entry.unixMode,
      mtimeMs: entry.modifiedAt.getTime(),
      limit: ordered[i + 1]?.entry.localHeaderOffset ?? directory.centralStart,
    });
  });

  let done = 0;
  const advance = (bytes: number, label?: string) => {
    done += bytes;
    progress?.(done, plan.totalBytes, label);
  };
  // ZIPFS_THREADS=1 keeps open on one thread (a busy machine, or measuring the difference).
  const parallel = threads > 1 && (plan.totalBytes >= PARALLEL_MIN_BYTES || tasks.length >= PARALLEL_MIN_FILES);
  const split = parallel ? splitPoint(tasks) : tasks.length;
  const helper = split < tasks.length ? startWorker({ fd: source.fd, root, tasks: tasks.slice(split) }, advance) : undefined;
  try {
    // Progress notifications go out and a cancel gets through while a large archive extracts.
    const pause = eventLoopTurns(signal);
    for (const task of tasks.slice(0, split)) {
      await writeFileTask(source, task, root);
      advance(task.entry.uncompressedSize, task.path);
      await pause();
    }
    if (helper) await (signal ? Promise.race([helper.finished, whenAborted(signal)]) : helper.finished);
  } finally {
    // Wait until the worker is gone: a failed open removes the staging folder next.
    await helper?.stop();
  }

  // Writing files touched their folders' times; restore the archive's times last, deepest first.
  for (const item of [...plan.items].reverse()) {
    if (item.type === 'dir') fs.utimesSync(path.join(root, item.path), item.entry.modifiedAt, item.entry.modifiedAt);
  }
  return plan.items.map((item) => entryRecord(item.entry, item.path, item.type));
}

/** Rejects with the signal's reason once it is aborted (never settles otherwise). */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** The index that splits the tasks into two contiguous runs of about equal cost. */
function splitPoint(tasks: FileTask[]): number {
  const total = tasks.reduce((sum, task) => sum + taskCost(task), 0);
  let running = 0;
  for (let i = 0; i < tasks.length; i++) {
    running += taskCost(tasks[i]!);
    if (running >= total / 2) return i + 1;
  }
  return tasks.length;
}

function startWorker(job: ExtractJob, advance: (bytes: number) => void): { finished: Promise<void>; stop(): Promise<void> } {
  const worker = new Worker(workerPath('open/extract-worker.ts'));
  const finished = new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<ExtractReport>) => {
      const report = event.data;
      if (report.kind === 'progress') advance(report.bytes);
      else if (report.kind === 'done') resolve();
      else if (report.errno) reject(Object.assign(new Error(report.message), { code: report.errno }));
      else reject(new ZipfsError(report.code as ErrorCode, report.message));
    };
    worker.onerror = (event) => reject(new ZipfsError('INTERNAL_ERROR', `The extraction thread failed: ${event.message}.`));
  });
  finished.catch(() => {}); // observed by the caller's await; never an unhandled rejection
  worker.postMessage(job);
  const closed = new Promise<void>((resolve) => worker.addEventListener('close', () => resolve(), { once: true }));
  return {
    finished,
    stop: () => {
      worker.terminate();
      return closed;
    },
  };
}
