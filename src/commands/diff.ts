import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { paintDiff } from '../format/paint-diff.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { readManifest } from '../session/manifest.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { diffAgainstArchive } from '../sync/archive-diff.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { count, flag, name, sessionParam, text } from './schemas.ts';

export const diff = defineCommand({
  name: 'diff',
  title: 'Diff',
  description: 'Status\'s changes as a diff against the zip.',
  input: v.strictObject({
    session: sessionParam,
    path: v.optional(v.pipe(v.string(), v.description('Limit to a path'))),
    context_lines: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100), v.description('Around changes')), 3),
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
      v.description('By path'),
    ),
    diff: text('Unified diff'),
    truncated: flag('Diff cut to fit'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: {
    workspacePaths: ['path'],
    positionals: ['path'],
    short: { session: 's', context_lines: 'U' },
    example: 'zipfs diff data --stat',
    flags: { stat: 'Per-file line counts instead of the diff', 'exit-code': 'Exit with 1 when there are differences' },
    exitCode: (out, flags) => (flags['exit-code'] && out.files.length > 0 ? 1 : 0),
  },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    // Over MCP the diff travels twice, escaped: a third of the answer bound keeps it inside.
    const maxChars = context.maxAnswerBytes === undefined ? undefined : Math.floor(context.maxAnswerBytes / 3);
    return diffAgainstArchive(session.contents, readManifest(session.manifest), { path: input.path, context: input.context_lines, maxChars });
  },
  render(out, paint, flags) {
    if (flags.stat) {
      const rows = out.files.map((f) => `${f.status[0]!.toUpperCase()} ${f.from !== undefined ? `${f.from} -> ` : ''}${f.path}  ${f.binary ? paint.dim('binary') : f.difference ? paint.dim(f.difference) : `${paint.green(`+${f.additions}`)} ${paint.red(`-${f.deletions}`)}`}`);
      return [...rows, `${plural(out.files.length, 'file')} changed`].join('\n');
    }
    return paintDiff(out.diff, paint);
  },
  note: (out) => (out.truncated ? 'zipfs: the diff was cut to fit one answer; narrow it with a path.' : out.files.length === 0 ? 'No changes.' : undefined),
});
