/** The messages between grep's main thread and its worker. */

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
}

export interface GrepMatch {
  file: string;
  line_number: number;
  line_content: string;
  context_before?: string[];
  context_after?: string[];
}

/** Sent as the worker goes, so a search stopped by the time budget still returns what it found. */
export type GrepMessage =
  | { kind: 'matches'; matches: GrepMatch[]; total: number; filesSearched: number; skippedBinary: number }
  | { kind: 'done'; truncated: boolean };
