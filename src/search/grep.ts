/**
 * grep over a workspace: the files are listed and filtered here, the regular
 * expression runs in a worker thread under a time budget (see grep-worker.ts).
 *
 * The time budget never loses matches: the worker reports, with what it found,
 * how far it has searched (a place: a file, a line, a column), and a search
 * the budget stops answers that place, from which the next call resumes
 * (grep-cursor.ts). A search that has not got anywhere yet when the budget
 * ends is given until the wait ceiling (waitMs) to get past its first place,
 * so even a tiny budget moves on.
 */
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import type { GaveUp, GrepJob, GrepMatch, GrepMessage, GrepOutput, GrepPlace, GrepZipEntry } from './grep-types.ts';
import { LINE_CAP_CHARS } from './line-search.ts';
import { workerPath } from '../base/worker-path.ts';
import { passwordEnv } from '../zip/ciphers/password.ts';
import type { TextEncoding } from '../files/text-encoding.ts';
import { quote } from '../base/errors.ts';
import { itemsFrom, listFiles, mergeZipEntries } from './grep-files.ts';
import { budgetNote, givenUpNote, stuckNote, truncatedNote } from './grep-notes.ts';

export interface GrepRequest {
  root: string;
  /** Folder (or file) to search, workspace-relative; '' for the root. */
  start: string;
  pattern: string;
  glob?: string;
  ignoreCase: boolean;
  /** Items (matches, or files for output 'files' and 'count') to find before stopping. */
  maxResults: number;
  contextLines: number;
  countAll: boolean;
  namesOnly: boolean;
  encoding: TextEncoding;
  binary: boolean;
  /** 'matches' unless said. */
  output?: GrepOutput;
  /** Resume after this place (a cursor's): what is before it was searched by an earlier call. */
  after?: GrepPlace;
  budgetMs: number;
  /** How long a search that has got nowhere past its start may go on (budgetMs unless said). */
  waitMs?: number;
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
  /** Items counted (matches, or files for output 'files' and 'count'): more than maxResults means more to show. */
  items: number;
  /** Stopped by the time budget: for the caller, not the answer. */
  timedOut?: true;
  /** With timedOut: everything before this place was searched and its matches are in `matches` (absent: nothing). */
  done?: GrepPlace;
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

function samePlace(a: GrepPlace, b: GrepPlace | undefined): boolean {
  return b !== undefined && a.file === b.file && a.line === b.line && a.column === b.column;
}

export async function grepWorkspace(request: GrepRequest): Promise<GrepResult> {
  const flags = request.ignoreCase ? 'i' : '';
  compile(request.pattern, flags);
  const accept = globFilter(request.glob);
  const listed = listFiles(request.root, request.start, accept);
  const all = request.zipEntries?.length
    ? mergeZipEntries(listed, request.zipEntries, request.start, accept)
    : listed.map((file) => ({ file }));
  const files = itemsFrom(all, request.after);
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
    output: request.output ?? 'matches',
  };
  const result: GrepResult = {
    matches: [],
    total_matches: 0,
    truncated: false,
    files_searched: 0,
    skipped_binary: 0,
    items: 0,
  };
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
  if (all.length === 0)
    return request.glob
      ? {
          ...result,
          note:
            `The glob ${quote(request.glob)} matched no file under ${quote(request.start || '/')}, so nothing ` +
            `was searched. A glob without "/" matches file names (*.txt); one with "/" matches the whole path from ` +
            `the workspace root (a/**/*.csv).`,
        }
      : result;
  if (files.length === 0) return result; // a cursor past the last file

  request.signal?.throwIfAborted();
  // The environment as this process has it now (--password-file sets ZIPFS_PASSWORD_FILE after start-up), with a
  // password a prompt or an elicitation gave.
  const env = passwordEnv();
  const worker = new Worker(workerPath('search/grep-worker.ts'), { env });
  return new Promise<GrepResult>((resolve, reject) => {
    let done: GrepPlace | undefined;
    let overBudget = false;
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
    const stopAtBudget = () => {
      stop();
      const left = { files: files.length, first: files[0]!.file };
      const note = done ? budgetNote(result, request, left.files) : stuckNote(request, left.first);
      resolve(noteCuts({ ...result, truncated: true, timedOut: true, note, ...(done ? { done } : {}) }));
    };
    request.signal?.addEventListener('abort', cancel, { once: true });
    // At the budget: stop if the search got anywhere, else let it go on to the wait ceiling or its first place.
    let timer = setTimeout(() => {
      if (done) return stopAtBudget();
      overBudget = true;
      timer = setTimeout(stopAtBudget, Math.max(0, (request.waitMs ?? 0) - request.budgetMs));
    }, request.budgetMs);
    worker.onmessage = (event: MessageEvent<GrepMessage>) => {
      const message = event.data;
      if (message.kind === 'matches') {
        result.matches.push(...message.matches);
        result.total_matches = message.total;
        result.items = message.items;
        result.files_searched = message.filesSearched;
        result.skipped_binary = message.skippedBinary;
        cutLines = message.cutLines;
        gaveUp = message.gaveUp;
        // The place it resumed from is no progress: a cursor answered again would go round forever.
        if (message.done && !samePlace(message.done, request.after)) done = message.done;
        if (overBudget && done) stopAtBudget();
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
