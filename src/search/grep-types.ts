/** The messages between grep's main thread and its worker. */
import type { TextEncoding } from '../files/text-encoding.ts';

export interface GrepJob {
  root: string;
  /** Workspace-relative paths to search, in order. */
  files: string[];
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
}

export interface GrepMatch {
  file: string;
  line_number: number;
  line_content: string;
  context_before?: string[];
  context_after?: string[];
  /** In a binary file: where the first match starts. */
  byte_offset?: number;
}

/** Sent as the worker goes, so a search stopped by the time budget still returns what it found. */
export type GrepMessage =
  | { kind: 'matches'; matches: GrepMatch[]; total: number; filesSearched: number; skippedBinary: number; cutLines: number }
  | { kind: 'done'; truncated: boolean };
