/** The messages between grep's main thread and its worker. */
import type { ErrorCode } from '../base/errors.ts';
import type { TextEncoding } from '../files/text-encoding.ts';
import type { EntryLocation } from '../zip/types.ts';

/**
 * An entry of a zip to search in place of a workspace file: a lazy session's
 * entry that was never extracted. Passed in GrepRequest.zipEntries.
 */
export interface GrepZipEntry {
  /** Workspace-relative path the matches name (the entry's place in the workspace). */
  file: string;
  /** The archive holding it. */
  zipPath: string;
  /**
   * An open descriptor of it, checked to be the session's base (lazy-session.ts, LazyReader): read through it, not the
   * path.
   */
  zipFd?: number;
  /** Where its data is (from the central directory, or the session's manifest). */
  entry: EntryLocation;
}

/** One file for the worker: a workspace file, or, with `zip`, an entry read from a zip. */
export interface GrepItem {
  /** Workspace-relative path, shown in matches (and opened in the workspace when there is no `zip`). */
  file: string;
  zip?: { zipPath: string; zipFd?: number; entry: EntryLocation };
  /** Resume inside this file: what a previous page already gave is skipped (a cursor's place, grep-cursor.ts). */
  from?: LinePlace;
}

/**
 * A place inside a text file: lines before `line` are done, and in `line` the matches whose column is at most
 * `column` (0: none of the line).
 */
export interface LinePlace {
  line: number;
  column: number;
}

/** A place in a grep's file order: in `file` at `line`/`column`, or past the whole file when line is 0. */
export interface GrepPlace extends LinePlace {
  file: string;
}

/** What grep answers with: every match, the files with a match (grep -l), or a count per file (grep -c). */
export type GrepOutput = 'matches' | 'files' | 'count';

export interface GrepJob {
  root: string;
  /** What to search, in order. */
  files: GrepItem[];
  pattern: string;
  flags: string;
  maxResults: number;
  contextLines: number;
  /** Keep counting past max_results, so total_matches is exact. */
  countAll: boolean;
  /** Match the pattern against paths instead of contents. */
  namesOnly: boolean;
  /** For files without a byte-order mark (file-text.ts). */
  encoding: TextEncoding;
  /** Search binary files as Latin-1 bytes: one match per file, with its byte offset. */
  binary: boolean;
  output: GrepOutput;
}

export interface GrepMatch {
  file: string;
  line_number: number;
  line_content: string;
  context_before?: string[];
  context_after?: string[];
  /** Where the match starts in the line, from 1 (UTF-16 code units); absent for names, binary files and files. */
  column?: number;
  /** In a binary file: where the first match starts. */
  byte_offset?: number;
  /** output 'count': the file's matches. */
  count?: number;
}

/**
 * Where the regex engine gave up (regex-give-up.ts): how many places, and the first (line 0: a binary file or a name).
 */
export interface GaveUp {
  count: number;
  first?: { file: string; line: number };
}

/**
 * Sent as the worker goes, so a search stopped by the time budget still
 * returns what it found. `error` carries a ZipfsError across the thread
 * boundary (a zip entry that is a bomb or damaged), code and message intact.
 */
export type GrepMessage =
  | {
      kind: 'matches';
      matches: GrepMatch[];
      /** Matches counted (files, for output 'files'). */
      total: number;
      /** Items counted: matches, or files for output 'files' and 'count' (max_results applies to these). */
      items: number;
      /** Everything before this place was searched and its matches sent: where a stopped search resumes. */
      done?: GrepPlace;
      filesSearched: number;
      skippedBinary: number;
      cutLines: number;
      gaveUp: GaveUp;
    }
  | { kind: 'done'; truncated: boolean }
  | { kind: 'error'; code: ErrorCode; message: string };
