import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { ERROR_CODES, ZipfsError } from '../base/errors.ts';
import { assertNarrowing } from '../table/filter-values.ts';
import { loadLimits } from '../rules/limits.ts';
import { globFilter, grepWorkspace } from '../search/grep.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import type { GrepZipEntry } from '../search/grep-types.ts';
import { withBeneath } from '../files/beneath.ts';
import { TEXT_ENCODINGS } from '../files/text-encoding.ts';
import { continuation, itemChars, nextOffsetField, offsetParam, takePage } from '../table/paging.ts';
import type { GrepMatch } from '../search/grep-types.ts';
import type { GrepResult } from '../search/grep.ts';
import { MAX_BUDGET_MS, decodeCursor, encodeCursor, placeAfter, type GrepCursor } from '../search/grep-cursor.ts';
import { count, flag, name, paths, sessionParam, text, workspacePathParam } from './schemas.ts';

const matchSchema = v.object({
  file: name('Path'),
  line_number: count('0 if names_only'),
  line_content: text('Line'),
  context_before: v.optional(paths('Before')),
  context_after: v.optional(paths('After')),
  byte_offset: v.optional(count('Binary file: first match')),
  column: v.optional(count('From 1')),
});

const OUTPUTS = ['matches', 'files', 'count'] as const;

const grepInput = v.strictObject({
  session: sessionParam,
  pattern: v.pipe(v.string(), v.description('JavaScript regex')),
  path: workspacePathParam('Where to search'),
  glob: v.optional(v.pipe(v.string(), v.description('*.txt, or a path glob: a/**/*.csv'))),
  ignore_case: v.optional(v.pipe(v.boolean(), v.description('Ignore case')), false),
  max_results: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000), v.description('Matches to return')),
    100,
  ),
  context_lines: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(50), v.description('Context lines')),
    0,
  ),
  names_only: v.optional(
    v.pipe(v.boolean(), v.description('Match paths, not contents (files whose contents match: output files)')),
    false,
  ),
  count_all: v.optional(v.pipe(v.boolean(), v.description('Exact total_matches')), false),
  // For files without a byte-order mark; a BOM names its own (search/file-text.ts).
  encoding: v.optional(v.pipe(v.picklist(TEXT_ENCODINGS), v.description('If no BOM')), 'utf-8'),
  binary: v.optional(v.pipe(v.boolean(), v.description('Search binary files as Latin-1')), false),
  output: v.optional(v.pipe(v.picklist(OUTPUTS), v.description('files: as grep -l; count: -c')), 'matches'),
  time_budget_ms: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_BUDGET_MS), v.description('Then next_cursor')),
  ),
  offset: offsetParam,
  cursor: v.optional(v.pipe(v.string(), v.description('A next_cursor'))),
});

type GrepInput = v.InferOutput<typeof grepInput>;

interface PageContext {
  input: GrepInput;
  offset: number;
  cursor: GrepCursor | undefined;
  maxAnswerBytes: number | undefined;
}

/**
 * The answer for this page of what the search found. It goes on (next_cursor) after the last item
 * shown when more was found than shown (max_results, the answer's size), or from where the time
 * budget stopped the search; next_offset too, as before cursors, unless the budget stopped it (an
 * offset searches from the start again, and would meet the budget again).
 */
function pageOf(searched: GrepResult, { input, offset, cursor, maxAnswerBytes }: PageContext) {
  const { timedOut, done, items, ...found } = searched;
  const itemsBefore = cursor?.items ?? 0;
  const matchesBefore = cursor?.matches ?? 0;
  const kept = found.matches;
  const all = kept.slice(offset);
  const more = items > offset + all.length;
  const matchesIn = (list: GrepMatch[]) =>
    input.output === 'count' ? list.reduce((sum, item) => sum + (item.count ?? 0), 0) : list.length;
  const build = (shown: GrepMatch[], cut: number | undefined) => {
    let next: GrepCursor | undefined;
    const last = shown.at(-1);
    if ((cut !== undefined || more) && last)
      next = {
        place: placeAfter(last),
        items: itemsBefore + offset + shown.length,
        matches: matchesBefore + matchesIn(kept.slice(0, offset + shown.length)),
      };
    else if (timedOut && done)
      next = { place: done, items: itemsBefore + kept.length, matches: matchesBefore + matchesIn(kept) };
    const listed =
      input.output === 'matches'
        ? { matches: shown }
        : {
            matches: [],
            files: shown.map((m) => (m.count === undefined ? { file: m.file } : { file: m.file, count: m.count })),
          };
    return {
      ...found,
      ...listed,
      total_matches: matchesBefore + found.total_matches,
      truncated: found.truncated || next !== undefined,
      ...continuation(next && !timedOut ? next.items : undefined),
      ...(next ? { next_cursor: encodeCursor(next) } : {}),
    };
  };
  return takePage(all, {}, maxAnswerBytes, build, itemChars);
}

export const grep = defineCommand({
  name: 'grep',
  title: 'Search',
  description:
    'Regex search of file contents (names with names_only): every match with line and column. Works on entries ' +
    'not extracted. Stopped by max_results, answer size or time budget, it gives next_cursor: pass it as cursor.',
  input: grepInput,
  output: v.object({
    matches: v.pipe(v.array(matchSchema), v.description('In path order')),
    files: v.optional(
      v.pipe(
        v.array(v.object({ file: name('Path'), count: v.optional(count('Matches')) })),
        v.description('By output'),
      ),
    ),
    total_matches: count('Lower bound if truncated'),
    truncated: flag('More than shown'),
    files_searched: count('Files'),
    skipped_binary: count('Binary skipped'),
    note: v.optional(text('Why stopped')),
    next_offset: nextOffsetField,
    next_cursor: v.optional(text('Resumes where it stopped')),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    workspacePaths: ['path'],
    fromCurrentFolder: true,
    quietIsSilent:
      'Print nothing, as grep -q: the exit status answers (0 found, 1 none, 14 none but the search did not ' +
      'finish, others errors)',
    positionals: ['pattern', 'path'],
    short: { session: 's', ignore_case: 'i', context_lines: 'C', max_results: 'm' },
    example: 'zipfs grep "debug" data --glob "*.json" -i -C 1',
    // As grep and rg: 0 found, 1 found nothing, 2 and up an error. Nothing found in a search that did
    // not finish (time budget, the engine giving up) is no answer: LIMIT_EXCEEDED's exit, not 1.
    exitCode: (out) => (out.total_matches > 0 ? 0 : out.truncated ? ERROR_CODES.LIMIT_EXCEEDED.exit : 1),
  },
  check(input) {
    if (input.pattern === '')
      throw new ZipfsError(
        'INVALID_INPUT',
        'Invalid argument pattern: it is empty; give a JavaScript regular expression (names_only matches it ' +
          'against paths).',
      );
    // glob filters; path is a place ('' and '/' the root, as documented), not a filter.
    if (input.names_only && input.output !== 'matches')
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument output: names_only lists the matching paths already; leave output out with it, or ` +
          `leave names_only out to list the files whose content matches (output: '${input.output}').`,
      );
    if (input.cursor !== undefined && (input.offset ?? 0) > 0)
      throw new ZipfsError(
        'INVALID_INPUT',
        'Invalid argument offset: give cursor or offset, not both (a cursor already says where to go on).',
      );
    if (input.glob !== undefined)
      assertNarrowing([input.glob], 'glob', 'search every file under path', { matchesEntries: false });
  },
  async run(input, context) {
    const { session } = context;
    const workspace = workspaceOf(session);
    const start = withBeneath(session.contents, (beneath) => workspace.stat(beneath, input.path));
    const limits = loadLimits(context.env);
    const offset = input.offset ?? 0;
    const cursor = input.cursor === undefined ? undefined : decodeCursor(input.cursor);
    const budgetMs = input.time_budget_ms ?? limits.grepBudgetMs;
    // The search finds the skipped matches again (and counts them in total_matches); only this page's are returned.
    const search = (zipEntries?: GrepZipEntry[]) =>
      grepWorkspace({
        root: session.contents,
        start: start.relative,
        pattern: input.pattern,
        glob: input.glob,
        ignoreCase: input.ignore_case,
        maxResults: offset + input.max_results,
        contextLines: input.context_lines,
        countAll: input.count_all,
        namesOnly: input.names_only,
        encoding: input.encoding,
        binary: input.binary,
        output: input.output,
        ...(cursor ? { after: cursor.place } : {}),
        budgetMs,
        waitMs: Math.max(budgetMs, limits.grepBudgetMs),
        signal: context.signal,
        ...(zipEntries ? { zipEntries } : {}),
      });
    // Entries only in the archive are searched there, each checked as a read checks it (Workspace.withGrepItems).
    const searched = await workspace.withGrepItems(start.relative, globFilter(input.glob), limits, search);
    return pageOf(searched, { input, offset, cursor, maxAnswerBytes: context.maxAnswerBytes });
  },
  render(out, paint, _flags, input) {
    // The matches in each line, marked as grep --color does (paint is plain off a terminal).
    const regex = new RegExp(input.pattern, input.ignore_case ? 'gi' : 'g');
    const highlight = (line: string) => line.replace(regex, (hit) => (hit === '' ? hit : paint.bold(paint.red(hit))));
    const lines: string[] = [];
    const at = (file: string, line: number, separator: string, text: string) =>
      `${paint.magenta(file)}${paint.dim(separator)}${paint.green(String(line))}${paint.dim(separator)}${text}`;
    for (const match of out.matches) {
      if (match.byte_offset !== undefined) {
        lines.push(
          `${paint.magenta(match.file)}${paint.dim(':')}${paint.green(`byte ${match.byte_offset}`)}` +
            `${paint.dim(':')}${highlight(match.line_content)}`,
        );
        continue;
      }
      if (match.line_number === 0) {
        lines.push(paint.magenta(match.file));
        continue;
      }
      match.context_before?.forEach((line, i, all) =>
        lines.push(at(match.file, match.line_number - all.length + i, '-', line)),
      );
      lines.push(at(match.file, match.line_number, ':', highlight(match.line_content)));
      match.context_after?.forEach((line, i) => lines.push(at(match.file, match.line_number + i + 1, '-', line)));
    }
    return lines.join('\n');
  },
  note(out, quiet) {
    const notes = [];
    if (out.next_offset !== undefined)
      notes.push(
        `zipfs: showing ${out.matches.length} of at least ${out.total_matches} matches; continue with --offset ` +
          `${out.next_offset} (or raise --max-results).`,
      );
    else if (out.note) notes.push(out.note);
    else if (out.truncated)
      notes.push(
        `zipfs: showing ${out.matches.length} of at least ${out.total_matches} matches; raise --max-results for more.`,
      );
    if (out.skipped_binary > 0 && !quiet) notes.push(`zipfs: ${out.skipped_binary} binary file(s) skipped.`);
    return notes.length > 0 ? notes.join('\n') : undefined;
  },
});
