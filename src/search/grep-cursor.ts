/**
 * grep's cursor: where the next call resumes, as an opaque string an agent
 * passes back (`cursor`, from `next_cursor`). It names a place in the one
 * order grep searches (grep-files.ts): a file, and in it a line and a column
 * (line 0: past the whole file), so the next call skips what is before it
 * without searching it again, and nothing is skipped or given twice. A place,
 * not a count of files: files added or removed between calls do not shift
 * it. It also carries the items and matches before it, so counts and
 * next_offset stay counted from the start.
 */
import { ZipfsError } from '../base/errors.ts';
import type { GrepMatch, GrepPlace } from './grep-types.ts';

/** The most time_budget_ms may ask for (and the ceiling of what a note suggests). */
export const MAX_BUDGET_MS = 300_000;

export interface GrepCursor {
  place: GrepPlace;
  /** Items (matches, or files for output 'files' and 'count') before the place. */
  items: number;
  /** Matches before the place. */
  matches: number;
}

const VERSION = 1;

export function encodeCursor(cursor: GrepCursor): string {
  const { place, items, matches } = cursor;
  const json = JSON.stringify([VERSION, place.file, place.line, place.column, items, matches]);
  return Buffer.from(json).toString('base64url');
}

const natural = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

export function decodeCursor(text: string): GrepCursor {
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    fields = undefined;
  }
  if (
    !Array.isArray(fields) ||
    fields.length !== 6 ||
    fields[0] !== VERSION ||
    typeof fields[1] !== 'string' ||
    !fields.slice(2).every(natural)
  )
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid argument cursor: it is not one grep gave. Pass next_cursor from the last answer exactly, with the ' +
        'same pattern and options, or leave cursor out to search from the start.',
    );
  const [, file, line, column, items, matches] = fields as [number, string, number, number, number, number];
  return { place: { file, line, column }, items, matches };
}

/** The place just past a match: the rest of its line, or the next file for what stands for a whole file. */
export function placeAfter(match: GrepMatch): GrepPlace {
  return match.line_number > 0 && match.column !== undefined
    ? { file: match.file, line: match.line_number, column: match.column }
    : { file: match.file, line: 0, column: 0 };
}
