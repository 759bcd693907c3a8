import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { loadLimits } from '../limits.ts';
import { grepWorkspace } from '../search/grep.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { resolveExisting } from '../files/safe-path.ts';
import { sessionParam, workspacePathParam } from './schemas.ts';

const matchSchema = v.object({
  file: v.string(),
  line_number: v.number(),
  line_content: v.string(),
  context_before: v.optional(v.array(v.string())),
  context_after: v.optional(v.array(v.string())),
});

export const grep = defineCommand({
  name: 'grep',
  title: 'Search file contents',
  description:
    'Search the files of a session\'s workspace with a JavaScript regular expression, line by line. Binary files are skipped (counted in skipped_binary); long lines are cut around the match. total_matches is exact unless the search stopped early (truncated with count_all false: it stops at the first match past max_results).',
  input: v.strictObject({
    session: sessionParam,
    pattern: v.pipe(v.string(), v.minLength(1), v.description('JavaScript regular expression, matched against each line')),
    path: workspacePathParam('Folder or file to search, relative to the workspace root'),
    glob: v.optional(v.pipe(v.string(), v.minLength(1), v.description('File filter: without "/" it matches file names at any depth ("*.txt"); with "/" the whole path ("data/**/*.csv")'))),
    ignore_case: v.optional(v.pipe(v.boolean(), v.description('Case-insensitive matching')), false),
    max_results: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000), v.description('Maximum matches to return')), 100),
    context_lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(50), v.description('Lines of context before and after each match')), 0),
    names_only: v.optional(v.pipe(v.boolean(), v.description('Match the pattern against file paths instead of contents')), false),
    count_all: v.optional(v.pipe(v.boolean(), v.description('Keep counting past max_results so total_matches is exact')), false),
  }),
  output: v.object({
    matches: v.array(matchSchema),
    total_matches: v.number(),
    truncated: v.boolean(),
    files_searched: v.number(),
    skipped_binary: v.number(),
    note: v.optional(v.string()),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: {
    positionals: ['pattern', 'path'],
    short: { session: 's', ignore_case: 'i', context_lines: 'C', max_results: 'm' },
    example: 'zipfs grep "debug" data --glob "*.json" -i -C 1',
  },
  async run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    const start = resolveExisting(session.contents, input.path);
    const limits = loadLimits(context.env);
    return grepWorkspace({
      root: session.contents,
      start: start.relative,
      pattern: input.pattern,
      glob: input.glob,
      ignoreCase: input.ignore_case,
      maxResults: input.max_results,
      contextLines: input.context_lines,
      countAll: input.count_all,
      namesOnly: input.names_only,
      budgetMs: limits.grepBudgetMs,
    });
  },
  render(out, paint) {
    const lines: string[] = [];
    const at = (file: string, line: number, separator: string, text: string) => `${paint.magenta(file)}${paint.dim(separator)}${paint.green(String(line))}${paint.dim(separator)}${text}`;
    for (const match of out.matches) {
      if (match.line_number === 0) {
        lines.push(paint.magenta(match.file));
        continue;
      }
      match.context_before?.forEach((line, i, all) => lines.push(at(match.file, match.line_number - all.length + i, '-', line)));
      lines.push(at(match.file, match.line_number, ':', match.line_content));
      match.context_after?.forEach((line, i) => lines.push(at(match.file, match.line_number + i + 1, '-', line)));
    }
    return lines.join('\n');
  },
  note(out) {
    const notes = [];
    if (out.note) notes.push(out.note);
    else if (out.truncated) notes.push(`zipfs: showing ${out.matches.length} of at least ${out.total_matches} matches; raise --max-results for more.`);
    if (out.skipped_binary > 0) notes.push(`zipfs: ${out.skipped_binary} binary file(s) skipped.`);
    return notes.length > 0 ? notes.join('\n') : undefined;
  },
});
