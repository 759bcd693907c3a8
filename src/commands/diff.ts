import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { paintDiff } from '../format/paint-diff.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { diffAgainstArchive, type FileDiff } from '../sync/archive-diff.ts';
import { diffAgainstZip } from '../sync/zip-diff.ts';
import { loadLimits } from '../rules/limits.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import {
  itemChars,
  pageFields,
  limitParam,
  nextOffsetField,
  offsetParam,
  pageNote,
  takePage,
  textChars,
  totalField,
} from '../table/paging.ts';
import { count, flag, name, sessionParam, text } from './schemas.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';

/** What diff pages through: each changed path's entry in files, then the lines of its diff. */
type Item = { file: FileDiff } | { line: string };

export const diff = defineCommand({
  name: 'diff',
  title: 'Diff',
  description: "Status's changes as a diff against the base, or the zip now.",
  input: v.strictObject({
    session: sessionParam,
    path: v.optional(v.pipe(v.string(), v.description('Limit to a path'))),
    against: v.optional(v.pipe(v.picklist(['base', 'zip']), v.description('zip: as on disk now')), 'base'),
    context_lines: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.description('Around changes')),
      3,
    ),
    // Per-file counts only: the pages are then of files, so limit and total count files, not diff lines.
    stat: v.optional(v.pipe(v.boolean(), v.description('Per-file counts, no lines')), false),
    offset: offsetParam,
    limit: limitParam('files + lines; files with stat'),
  }),
  output: v.object({
    files: v.pipe(
      v.array(
        v.object({
          path: name('Folders end in /'),
          status: v.pipe(v.picklist(['modified', 'added', 'deleted', 'renamed']), v.description('Change')),
          from: v.optional(name('Old path, if renamed')),
          binary: flag('No text diff'),
          additions: count('Lines'),
          deletions: count('Lines'),
          difference: v.optional(text('If no line differs')),
        }),
      ),
      v.description("By path; this page's"),
    ),
    diff: text('Unified diff, this page'),
    truncated: flag('More after this page'),
    total: totalField('files + lines; files with stat'),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    workspacePaths: ['path'],
    positionals: ['path'],
    short: { session: 's', context_lines: 'U' },
    example: 'zipfs diff data --stat',
    flags: { 'exit-code': 'Exit with 1 when there are differences' },
    exitCode: (out, flags) => (flags['exit-code'] && (out.total ?? out.files.length) > 0 ? 1 : 0),
  },
  async run(input, context) {
    const { session } = context;
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    const base = workspaceOf(session).base();
    const options = { path: input.path, context: input.context_lines };
    const sections =
      input.against === 'zip'
        ? await diffAgainstZip(session, base, { ...options, limits: loadLimits(context.env) })
        : await diffAgainstArchive(session, base, options);
    const items: Item[] = sections.flatMap((section) => [
      { file: section.file },
      ...(input.stat ? [] : section.lines.map((line) => ({ line }))),
    ]);
    const build = (page: Item[], next: number | undefined) => ({
      files: page.flatMap((item) => ('file' in item ? [item.file] : [])),
      diff: page.map((item) => ('line' in item ? `${item.line}\n` : '')).join(''),
      truncated: next !== undefined,
      ...pageFields(items.length, input.offset, next),
    });
    return takePage(items, input, context.maxAnswerBytes, build, (item) =>
      'file' in item ? itemChars(item.file) : textChars(`${item.line}\n`),
    );
  },
  render(out, paint, _flags, input) {
    if (input.stat) {
      const rows = out.files.map(
        (f) =>
          `${f.status[0]!.toUpperCase()} ${f.from !== undefined ? `${f.from} -> ` : ''}${f.path}  ` +
          (f.binary
            ? paint.dim('binary')
            : f.difference
              ? paint.dim(f.difference)
              : `${paint.green(`+${f.additions}`)} ${paint.red(`-${f.deletions}`)}`),
      );
      // Every changed file is counted, this page's or not (total counts files with stat).
      return [...rows, `${plural(out.total ?? out.files.length, 'file')} changed`].join('\n');
    }
    return paintDiff(out.diff, paint);
  },
  // Like git diff, nothing on stdout when nothing changed (a patch file stays empty); the word is a note.
  note: (out, quiet, input) =>
    pageNote(input?.stat ? 'files' : 'items (files and diff lines)', out.total, out.next_offset) ??
    (!quiet && (out.total ?? out.files.length) === 0 ? 'No changes.' : undefined),
});
