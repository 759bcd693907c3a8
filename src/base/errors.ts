/**
 * The one error type of zipfs. Every failure that reaches a caller is a
 * ZipfsError whose code comes from ADR-005's table (plus our documented
 * extensions), so the CLI and MCP adapters can map it without guessing.
 */
import { quoted } from '../format/quote-name.ts';
import { invocation } from './message-marks.ts';
import { showPathsOf, shownPath } from './descriptor-paths.ts';

/**
 * Error codes with the CLI exit code each maps to, and what each means to a caller (the README's
 * table of exit codes is generated from this one: bun scripts/readme-blocks.ts). The codes are
 * ADR-005's plus the extensions marked; exit code 1 is kept for "ran fine, but there is something
 * to see" (`status --exit-code`, grep's no match), like `git diff`.
 */
export const ERROR_CODES = {
  INVALID_INPUT: {
    exit: 2,
    summary:
      'An argument or ZIPFS_* variable is missing, unknown or malformed; sync: a workspace file where entries only ' +
      'in the zip need a folder (zipfs extension)',
  },
  SESSION_NOT_FOUND: { exit: 3, summary: 'The session name or id matches no session' },
  AMBIGUOUS_SESSION: {
    exit: 4,
    summary: 'Several sessions are open and none was chosen (or an id prefix matches several)',
  },
  NO_SESSIONS: { exit: 5, summary: 'No sessions are open' },
  ZIP_NOT_FOUND: { exit: 6, summary: 'The zip does not exist, cannot be read, or is a folder' },
  ZIP_INVALID: {
    exit: 7,
    summary:
      'Not a zip (a FIFO, socket or device too), damaged, encrypted, an unsupported method, a CRC mismatch, entry ' +
      'names that clash or this system cannot hold; sync: such an entry it would copy raw',
  },
  ZIP_BOMB_DETECTED: {
    exit: 8,
    summary:
      'An archive limit is exceeded, entries overlap, or data exceeds its declared size; sync refuses an archive ' +
      'open would refuse',
  },
  CONFLICT_DETECTED: {
    exit: 9,
    summary: 'The zip changed since the session opened or last synced it, or another program wrote it during a sync',
  },
  SYNC_FAILED: {
    exit: 10,
    summary:
      'Sync failed (a write error, the read-back check, what a zip cannot hold, a folder where the backup goes); ' +
      'the zip is as it was',
  },
  PATH_TRAVERSAL: { exit: 11, summary: 'A path, entry name or link would reach outside the workspace' },
  PATH_NOT_FOUND: { exit: 12, summary: 'The path does not exist in the workspace' },
  LOCKED: {
    exit: 13,
    summary: "Another process held the session's (or the zip's) lock for longer than ZIPFS_LOCK_WAIT_MS",
  },
  LIMIT_EXCEEDED: {
    exit: 14,
    summary:
      "A resource limit: sessions, workspace bytes, free disk, the system's path length; a grep that found nothing " +
      'but did not finish',
  },
  NAME_COLLISION: { exit: 15, summary: 'An explicit session name is already in use' },
  UNSYNCED_CHANGES: {
    exit: 16,
    summary: 'A close of a workspace with unsynced changes, without sync or force (zipfs extension)',
  },
  PERMISSION_DENIED: {
    exit: 17,
    summary:
      'A file or folder zipfs needs is not readable or writable by this user, or read-only; MCP: a zip outside the ' +
      "server's roots, or a tool that changes files on a --read-only server (zipfs extension)",
  },
  SESSION_DAMAGED: {
    exit: 18,
    summary:
      "A session's manifest, contents/ folder or lock place is damaged, or from another zipfs version (zipfs " +
      'extension)',
  },
  EDIT_MISMATCH: {
    exit: 19,
    summary:
      "An edit's old_text matches no times, or several without replace_all; nothing was written (zipfs extension)",
  },
  FILE_IN_USE: {
    exit: 20,
    summary:
      'Another program holds a file zipfs needs open without sharing it (Windows); nothing was changed, retry ' +
      '(zipfs extension)',
  },
  INTERNAL_ERROR: { exit: 70, summary: 'A bug or an unexpected system failure (zipfs extension)' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ZipfsError extends Error {
  readonly code: ErrorCode;
  /** Fields the answer carries beside code and message (a merge's conflicts, each with its path). */
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options);
    this.name = 'ZipfsError';
    this.code = code;
    if (options?.details) this.details = options.details;
  }

  /** The wire shape shared by `--json` and MCP `structuredContent`. */
  toJSON(): { error: { code: ErrorCode; message: string; [field: string]: unknown } } {
    return { error: { code: this.code, message: this.message, ...this.details } };
  }

  get exitCode(): number {
    return ERROR_CODES[this.code].exit;
  }
}

/** Node-style system error with an errno code such as ENOENT. */
export function isSystemError(error: unknown, ...codes: string[]): error is NodeJS.ErrnoException {
  return (
    error instanceof Error &&
    !(error instanceof ZipfsError) &&
    typeof (error as NodeJS.ErrnoException).code === 'string' &&
    (codes.length === 0 || codes.includes((error as NodeJS.ErrnoException).code as string))
  );
}

/** Turns anything thrown into a ZipfsError, so no surface ever shows a raw stack. */
export function toZipfsError(error: unknown): ZipfsError {
  if (error instanceof ZipfsError) return error;
  showPathsOf(error);
  if (isSystemError(error, 'ENOSPC', 'EDQUOT')) return diskFull(error);
  if (isSystemError(error, 'EBUSY', 'ETXTBSY')) return fileInUse(error);
  if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) return permissionDenied(error);
  if (isSystemError(error, 'ENAMETOOLONG', 'ELOOP')) return pathUnusable(error);
  const detail = error instanceof Error ? error.message : String(error);
  return new ZipfsError(
    'INTERNAL_ERROR',
    `Unexpected failure: ${detail}. This is a zipfs bug or a system fault; retry, and report it if it persists.`,
    { cause: error },
  );
}

/** ENOSPC (or EDQUOT) as the caller should read it: which disk (`location`, else the path the
 * call named), and what to do. */
export function diskFull(error: NodeJS.ErrnoException, location = error.path && shownPath(error.path)): ZipfsError {
  const which = location ? `The disk holding ${location} is full` : 'The disk is full';
  return new ZipfsError(
    'LIMIT_EXCEEDED',
    `${which}. Free some space there or prune sessions (${invocation('prune', { stale: '7d' })}), or set ZIPFS_HOME ` +
      `to a larger disk, then retry.`,
  );
}

/**
 * EBUSY: another program holds the file open without sharing it, an ordinary
 * condition on Windows (an editor, an indexer, a virus scanner). Name the
 * file, say who, and that a retry once it is closed will do.
 */
export function fileInUse(error: NodeJS.ErrnoException): ZipfsError {
  const what = error.path ? shownPath(error.path) : 'A file zipfs needs';
  return new ZipfsError(
    'FILE_IN_USE',
    `${what} is in use by another program, which holds it open; nothing was changed. Close it there (or wait for ` +
      `that program to let go), then retry.`,
  );
}

/** A path shown in a message: a long one by its start and end, and its length. */
function abridged(path: string): string {
  return path.length <= 240 ? path : `${path.slice(0, 100)}…${path.slice(-100)} (${path.length} characters)`;
}

/**
 * ENAMETOOLONG or ELOOP: a path zipfs was given, or makes under the data folder or beside the zip
 * (a workspace, a staging folder, a lock, a temporary), that the file system cannot reach.
 * Wherever it arises, the way out is a shorter (or link-free) data folder or zip path.
 */
export function pathUnusable(error: NodeJS.ErrnoException): ZipfsError {
  const where = error.path ? abridged(shownPath(error.path)) : 'a path zipfs needs';
  const nameTooLong = error.path?.split('/').some((name) => Buffer.byteLength(name) > 255) === true;
  const what =
    error.code === 'ELOOP'
      ? `The path ${where} cannot be reached: it runs through too many symbolic links (or a loop of them)`
      : `The path ${where} is too long for the file ` +
        `system (${nameTooLong ? 'a name in it is over 255 bytes' : 'over the 4,096 bytes a whole path may have'})`;
  const fix =
    error.code === 'ELOOP'
      ? 'fix those links, or use a path without them (ZIPFS_HOME for the data folder, or the zip moved elsewhere)'
      : 'set ZIPFS_HOME to a shorter folder, or move the zip to a shorter path with a shorter name, as this path needs';
  return new ZipfsError(
    'INVALID_INPUT',
    `${what}. zipfs makes its files under the data folder (workspaces, staging, locks) and beside the zip (the ` +
      `sync's temporary, its lock): ${fix}; then retry.`,
  );
}

/** EACCES, EPERM or EROFS: name the path and the way out, instead of a stack trace. */
export function permissionDenied(error: NodeJS.ErrnoException): ZipfsError {
  const what = error.path ? shownPath(error.path) : 'a file zipfs needs';
  const action = error.syscall ? ` (${error.syscall})` : '';
  const readOnly = error.code === 'EROFS' ? ' is on a read-only file system' : ' is not accessible to this user';
  return new ZipfsError(
    'PERMISSION_DENIED',
    `${what}${readOnly}${action}. Give your user read and write access to it (chmod u+rwX, or chown), or set ` +
      `ZIPFS_HOME to a folder you own, then retry.`,
  );
}

const QUOTE_MAX = 120;

/** A caller's value or a name, quoted for a message: at most a short prefix, so an error never echoes a huge
 * argument back, and escaped as names are on a terminal (format/quote-name.ts), so none acts on it. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  const shown = text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}…` : text;
  const escaped = quoted(shown);
  return text.length > QUOTE_MAX ? `${escaped} (${text.length} characters)` : escaped;
}

/**
 * What a check does with a refusal it finds. Open throws the first (throwRefusal): one refusal
 * ends it. Inspect collects them all from the same checks, so it reports exactly what open refuses.
 */
export type Refuse = (refusal: ZipfsError) => void;

export const throwRefusal: Refuse = (refusal) => {
  throw refusal;
};
