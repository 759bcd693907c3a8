/**
 * grep over a workspace: the files are listed and filtered here, the regular
 * expression runs in a worker thread under a time budget (see grep-worker.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { withBeneath, type Folder } from '../files/beneath.ts';
import type { GaveUp, GrepItem, GrepJob, GrepMatch, GrepMessage, GrepZipEntry } from './grep-types.ts';
import { LINE_CAP_CHARS } from './line-search.ts';
import { workerPath } from '../base/worker-path.ts';
import type { TextEncoding } from '../files/text-encoding.ts';
import { quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';

export interface GrepRequest {
  root: string;
  /** Folder (or file) to search, workspace-relative; '' for the root. */
  start: string;
  pattern: string;
  glob?: string;
  ignoreCase: boolean;
  maxResults: number;
  contextLines: number;
  countAll: boolean;
  namesOnly: boolean;
  encoding: TextEncoding;
  binary: boolean;
  budgetMs: number;
  /** Cancellation: the worker is terminated at once, as at the time budget. */
  signal?: AbortSignal;
  /**
   * Entries searched straight from a zip, as if they were workspace files at
   * their `file` path (a lazy session's entries not extracted): the same glob
   * and `start` apply, and they are searched in path order among the listed
   * files. A workspace file at the same path wins: it is the newer copy.
   * A bomb or damaged entry rejects the whole grep with its ZipfsError.
   */
  zipEntries?: GrepZipEntry[];
}

export interface GrepResult {
  matches: GrepMatch[];
  total_matches: number;
  truncated: boolean;
  files_searched: number;
  skipped_binary: number;
  note?: string;
  /** Stopped by the time budget (a next page would meet it again): for the caller, not the answer. */
  timedOut?: true;
}

/** Compiles the pattern here first, so a bad one is INVALID_INPUT with the engine's reason. */
function compile(pattern: string, flags: string): void {
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument pattern: ${(error as Error).message}. It is a JavaScript regular expression; escape ` +
        `special characters such as ( [ . * + ? with a backslash.`,
    );
  }
}

/**
 * The glob rule: a pattern without "/" matches file names at any depth
 * (`*.txt`); one with "/" matches the whole workspace-relative path, where
 * `**` spans folders (`data/**\/*.csv`).
 */
export function globFilter(glob: string | undefined): (relative: string) => boolean {
  if (!glob) return () => true;
  const matcher = new Bun.Glob(glob);
  return glob.includes('/')
    ? (relative) => matcher.match(relative)
    : (relative) => matcher.match(path.posix.basename(relative));
}

/**
 * Regular files under `start`, sorted; links and what they point at are never
 * searched. Folders are opened through their parents without following links
 * (beneath.ts), so a folder swapped for a link while grep lists is not entered.
 */
function listFiles(root: string, start: string, accept: (relative: string) => boolean): string[] {
  const files: string[] = [];
  const visit = (folder: Folder) => {
    // The folder's own record of each child's type (no stat per file); the worker checks each file again as it opens
    // it.
    const children = fs
      .readdirSync(folder.path, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const { name } = child;
      const relative = folder.childRelative(name);
      const stats =
        child.isFile() || child.isDirectory() || child.isSymbolicLink()
          ? child
          : fs.lstatSync(folder.child(name), { throwIfNoEntry: false });
      if (stats?.isFile()) {
        if (accept(relative)) files.push(relative);
      } else if (stats?.isDirectory()) {
        const inner = folder.openChild(name);
        if (!inner) continue; // swapped for a link since the lstat
        try {
          visit(inner);
        } finally {
          inner.close();
        }
      }
    }
  };
  withBeneath(root, (beneath) => {
    const stats = beneath.lstat(start);
    if (stats?.isFile()) {
      if (accept(start)) files.push(start);
    } else if (stats?.isDirectory()) {
      visit(beneath.folder(start));
    }
  });
  return files;
}

/**
 * The order listFiles walks in: folder by folder, each folder's names sorted
 * by code unit. It is plain string order once "/" sorts below every character
 * a name can hold, so a folder's contents come before a sibling "a.txt" of "a".
 */
function walkOrderKey(relative: string): string {
  return relative.replaceAll('/', '\0');
}

/** Whether `relative` is `start` or lies below it ('' is the root). */
function isWithin(start: string, relative: string): boolean {
  return start === '' || relative === start || relative.startsWith(`${start}/`);
}

/** The workspace files and the zip entries (filtered the same way) merged in walk order. */
function mergeZipEntries(
  files: string[],
  entries: GrepZipEntry[],
  start: string,
  accept: (relative: string) => boolean,
): GrepItem[] {
  const onDisk = new Set(files);
  const extra = entries
    .filter(({ file }) => isWithin(start, file) && accept(file) && !onDisk.has(file))
    .map(({ file, zipPath, zipFd, entry }) => ({
      key: walkOrderKey(file),
      item: { file, zip: { zipPath, zipFd, entry } },
    }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const items: GrepItem[] = [];
  let next = 0;
  for (const file of files) {
    const key = walkOrderKey(file);
    while (next < extra.length && extra[next]!.key < key) items.push(extra[next++]!.item);
    items.push({ file });
  }
  while (next < extra.length) items.push(extra[next++]!.item);
  return items;
}

/** The places where the regex engine gave up and answered "no match" (regex-give-up.ts). */
function givenUpNote(gaveUp: GaveUp): string | undefined {
  if (gaveUp.count === 0 || !gaveUp.first) return undefined;
  const { file, line } = gaveUp.first;
  const where = line > 0 ? `${quote(file)} line ${line}` : quote(file);
  return (
    `The regex engine gave up on ${gaveUp.count} line(s) or file(s) (first: ${where}): the pattern backtracks ` +
    `catastrophically there (nested repeats such as (x+x+)+ do), and a match in them may be missing. Rewrite it ` +
    `without nested repeats (x{2,}y for (x+x+)+y), or narrow path or glob.`
  );
}

/** How to get the matches a full answer left out. */
function truncatedNote(result: GrepResult, request: GrepRequest): string {
  const shown =
    `Showing ${result.matches.length} of ${request.countAll ? '' : 'at least '}${result.total_matches} ` + `matches`;
  const raise =
    request.maxResults < 100_000
      ? `raise ${param('max_results', Math.min(100_000, Math.max(request.maxResults * 10, result.total_matches)))} ` +
        `(up to 100000) for more, or narrow path or glob`
      : 'narrow path or glob for the rest';
  return `${shown}; ${raise}${request.countAll ? '' : `; ${param('count_all')} gives the exact total`}.`;
}

export async function grepWorkspace(request: GrepRequest): Promise<GrepResult> {
  const flags = request.ignoreCase ? 'i' : '';
  compile(request.pattern, flags);
  const accept = globFilter(request.glob);
  const listed = listFiles(request.root, request.start, accept);
  const files = request.zipEntries?.length
    ? mergeZipEntries(listed, request.zipEntries, request.start, accept)
    : listed.map((file) => ({ file }));
  const job: GrepJob = {
    root: request.root,
    files,
    pattern: request.pattern,
    flags,
    maxResults: request.maxResults,
    contextLines: request.contextLines,
    countAll: request.countAll,
    namesOnly: request.namesOnly,
    encoding: request.encoding,
    binary: request.binary,
  };
  const result: GrepResult = { matches: [], total_matches: 0, truncated: false, files_searched: 0, skipped_binary: 0 };
  let cutLines = 0;
  let gaveUp: GaveUp = { count: 0 };
  // Lines searched in part only (line-search.ts), or where the engine gave up (regex-give-up.ts): said,
  // or an agent would take them as searched and the match as absent.
  const noteCuts = (answer: GrepResult): GrepResult => {
    const notes = [answer.note, givenUpNote(gaveUp)];
    if (cutLines > 0)
      notes.push(
        `${cutLines} line(s) longer than ${LINE_CAP_CHARS} characters were searched in their first ` +
          `${LINE_CAP_CHARS} characters only.`,
      );
    const note = notes.filter((n) => n !== undefined).join(' ');
    return { ...answer, ...(gaveUp.count > 0 ? { truncated: true } : {}), ...(note ? { note } : {}) };
  };
  // Nothing searched is not "nothing found": say why, or an agent concludes the text is absent.
  if (files.length === 0)
    return request.glob
      ? {
          ...result,
          note:
            `The glob ${quote(request.glob)} matched no file under ${quote(request.start || '/')}, so nothing ` +
            `was searched. A glob without "/" matches file names (*.txt); one with "/" matches the whole path from ` +
            `the workspace root (a/**/*.csv).`,
        }
      : result;

  request.signal?.throwIfAborted();
  // The environment as this process has it now: --password-file sets ZIPFS_PASSWORD_FILE after start-up.
  const env = { ...process.env } as Record<string, string>;
  const worker = new Worker(workerPath('search/grep-worker.ts'), { env });
  return new Promise<GrepResult>((resolve, reject) => {
    // A regex deep in backtracking may take a moment to notice termination:
    // unref it so it cannot hold the process open meanwhile.
    const stop = () => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', cancel);
      worker.terminate();
      worker.unref();
    };
    const cancel = () => {
      stop();
      reject(request.signal!.reason);
    };
    request.signal?.addEventListener('abort', cancel, { once: true });
    const timer = setTimeout(() => {
      stop();
      resolve(
        noteCuts({
          ...result,
          truncated: true,
          timedOut: true,
          note:
            `Stopped after the ${request.budgetMs} ms time budget with ${result.files_searched} of ` +
            `${files.length} files searched; the pattern may backtrack catastrophically. Simplify it, narrow path ` +
            `or glob, or raise ZIPFS_GREP_TIME_BUDGET_MS.`,
        }),
      );
    }, request.budgetMs);
    worker.onmessage = (event: MessageEvent<GrepMessage>) => {
      const message = event.data;
      if (message.kind === 'matches') {
        result.matches.push(...message.matches);
        result.total_matches = message.total;
        result.files_searched = message.filesSearched;
        result.skipped_binary = message.skippedBinary;
        cutLines = message.cutLines;
        gaveUp = message.gaveUp;
        return;
      }
      stop();
      if (message.kind === 'error') return reject(new ZipfsError(message.code, message.message));
      resolve(
        noteCuts(message.truncated ? { ...result, truncated: true, note: truncatedNote(result, request) } : result),
      );
    };
    worker.onerror = (event) => {
      stop();
      reject(new ZipfsError('INTERNAL_ERROR', `The search failed: ${event.message}.`));
    };
    worker.postMessage(job);
  });
}
