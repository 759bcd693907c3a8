/**
 * What every kind of open shares: the request, the checks before a session is
 * made, the staging folder that becomes it, its record, and the zip opened to
 * read (eager open, lazy open, a new archive's empty session).
 */
import fs from 'node:fs';
import { ZipfsError, diskFull, isSystemError, pathUnusable } from '../base/errors.ts';
import type { Progress } from '../base/progress.ts';
import type { Limits } from '../rules/limits.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import { FileSource, type CodePage } from '../zip/index.ts';
import { workspacesDir } from '../session/data-dir.ts';
import { ctimeFence } from './ctime-fence.ts';
import { MANIFEST_FORMAT, type SessionRecord } from '../session/manifest.ts';
import { assertValidName } from '../session/session-name.ts';
import { listSessions, type Session } from '../session/session-store.ts';
import { assertNameFree } from '../session/session-name.ts';
import { createStaging, discardStaging, removeDeadStaging } from './staging.ts';
import { invocation, param } from '../base/message-marks.ts';
import { assertRoomInWorkspaces } from '../session/workspace-room.ts';
import type { SessionOwner } from '../session/owner.ts';
import type { RemoteFacts } from '../remote/remote-url.ts';

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
  /**
   * Extract every entry but the encrypted ones zipfs has no key for, which stay in the zip: an eager open of an
   * archive that has some (open-archive.ts) is a lazy one with everything else extracted.
   */
  allButLocked?: boolean;
  /** The job's process, recorded as the session's owner (session/owner.ts). */
  owner?: SessionOwner;
  /** The encoding of names without the UTF-8 flag (zip/names.ts), kept in the session for every later read. */
  nameEncoding?: CodePage;
  /**
   * No name was asked for: when another open of this zip published a session while this one
   * extracted, that session is the answer (`shared`), as it is for an open that comes after.
   */
  share?: boolean;
  /** A remote archive: zipPath is its mirror (open-remote.ts), and this what the session records of it. */
  remote?: RemoteFacts;
  /** A remote archive fetched whole at open (a server that ignores ranges). */
  download?: boolean;
  /** An S3-compatible store's endpoint, for an s3:// URL. */
  endpoint?: string;
}

/**
 * A new session, the warning when an orphaned session of the same name was taken over to make it,
 * and the one on names in another encoding (name-warning.ts); `shared` when another open of the zip
 * made one meanwhile and this open answers with it.
 */
export type Opened = Session & { tookOver?: string; shared?: true; nameWarning?: string };

/**
 * Runs `fill` on a fresh staging folder (prepareStaging's checks first), which it turns into a
 * session (publish); if it fails, the folder goes, so a failed open leaves nothing behind.
 */
export async function inStaging<T>(
  request: OpenRequest,
  bytes: number,
  fill: (staging: string) => T | Promise<T>,
): Promise<T> {
  const staging = prepareStaging(request, bytes);
  try {
    return await fill(staging);
  } catch (error) {
    discardStaging(staging);
    // A write to a descriptor says ENOSPC without a path: name the disk the workspaces are on.
    if (isSystemError(error, 'ENOSPC', 'EDQUOT'))
      throw diskFull(error as NodeJS.ErrnoException, workspacesDir(request.home));
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

/** What a new session's record is made from. */
export interface NewSession {
  zipPath: string;
  /** The zip's fingerprint (size -1: an archive still to be written). */
  source: SessionRecord['source'];
  /** The staging folder, whose file system sets the ctime fence. */
  staging: string;
  counts: { files: number; dirs: number; bytes: number; symlinks: string[] };
  /** The rules of the workspaces' folder (workspace-rules.ts): whether it folds case is recorded. */
  rules: FolderRules;
  owner: SessionOwner | undefined;
  nameEncoding?: CodePage | undefined;
  remote?: RemoteFacts;
}

export function sessionRecord(facts: NewSession): SessionRecord {
  const { zipPath, source, staging, counts, rules, owner, nameEncoding, remote } = facts;
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
    case_insensitive: rules.caseInsensitive === true,
    ...(owner ? { owner } : {}),
    ...(nameEncoding ? { name_encoding: nameEncoding } : {}),
    ...(remote ? { remote } : {}),
  };
}

/**
 * Whether something is at `zipPath`; a path no file can ever be at (too long, a loop of links) is refused, not taken
 * for a free place.
 */
export function zipExists(zipPath: string): boolean {
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
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `No file at ${zipPath}; check the path (relative paths are resolved ` +
        `from ${process.cwd()}), or pass ${param('create')} to start a new archive there.`,
    );
  }
  try {
    return new FileSource(zipPath);
  } catch (error) {
    if (error instanceof ZipfsError) throw error; // a folder, a FIFO, a device: refused by kind, nothing read
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `${zipPath} cannot be read (${(error as Error).message}); check its permissions.`,
    );
  }
}

/** The resource limits: how many sessions, and how many bytes all workspaces may hold (as extracted). */
function assertRoomForSession(home: string, limits: Limits, adding: number): void {
  const sessions = listSessions(home);
  if (sessions.length >= limits.maxSessions) {
    throw new ZipfsError(
      'LIMIT_EXCEEDED',
      `${sessions.length} sessions are open and the limit ` +
        `is ${limits.maxSessions}. Close some (${invocation('close', { session: 'NAME' })}), prune old ` +
        `ones (${invocation('prune', { stale: '7d' })}), or raise ZIPFS_MAX_SESSIONS.`,
    );
  }
  assertRoomInWorkspaces(home, limits, adding, 'this archive adds', sessions);
}

export function assertDiskSpace(dir: string, needed: number): void {
  let free: number;
  try {
    const stats = fs.statfsSync(dir);
    free = stats.bavail * stats.bsize;
  } catch {
    return; // No statfs here: extraction will still stop cleanly on ENOSPC.
  }
  if (needed > free) {
    throw new ZipfsError(
      'LIMIT_EXCEEDED',
      `The archive expands to ${needed} bytes but only ${free} bytes are free under ${dir}; free some space or set ` +
        `ZIPFS_HOME to a larger disk.`,
    );
  }
}
