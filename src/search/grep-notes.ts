/** What a grep's answer says about what it did not search, or not wholly. */
import { quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import type { GaveUp } from './grep-types.ts';
import { MAX_BUDGET_MS } from './grep-cursor.ts';
/** What the notes read of a request and a result (grep.ts's types, named here so the two files are no circle). */
interface GrepRequest {
  countAll: boolean;
  maxResults: number;
  budgetMs: number;
  waitMs?: number;
}
interface GrepResult {
  matches: unknown[];
  total_matches: number;
  files_searched: number;
}

/** The places where the regex engine gave up and answered "no match" (regex-give-up.ts). */
export function givenUpNote(gaveUp: GaveUp): string | undefined {
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
export function truncatedNote(result: GrepResult, request: GrepRequest): string {
  const shown =
    `Showing ${result.matches.length} of ${request.countAll ? '' : 'at least '}${result.total_matches} ` + `matches`;
  const raise =
    request.maxResults < 100_000
      ? `raise ${param('max_results', Math.min(100_000, Math.max(request.maxResults * 10, result.total_matches)))} ` +
        `(up to 100000) for more, or narrow path or glob`
      : 'narrow path or glob for the rest';
  return `${shown}; ${raise}${request.countAll ? '' : `; ${param('count_all')} gives the exact total`}.`;
}

/** The time budget stopped a search that got somewhere: the answer continues from there. */
export function budgetNote(result: GrepResult, request: GrepRequest, files: number): string {
  return (
    `Stopped at the ${request.budgetMs} ms time budget with ${result.files_searched} of ${files} files searched: ` +
    `nothing was skipped; next_cursor continues where it stopped. Or raise ` +
    `${param('time_budget_ms', Math.min(MAX_BUDGET_MS, request.budgetMs * 4))}, or narrow path or glob.`
  );
}

/** The search got nowhere within the wait: the first file (or its first line) alone takes longer. */
export function stuckNote(request: GrepRequest, first: string): string {
  const waitMs = Math.max(request.budgetMs, request.waitMs ?? 0);
  const raise = param('time_budget_ms', Math.min(MAX_BUDGET_MS, waitMs * 4));
  return (
    `Stopped at the ${waitMs} ms time budget before the first files (from ${quote(first)} on) were wholly ` +
    `searched: a very large file, or a pattern that backtracks catastrophically. next_cursor continues; or raise ` +
    `${raise}, simplify the pattern, or narrow path or glob.`
  );
}
