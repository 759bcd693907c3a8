import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { count, sessionParam, text } from './schemas.ts';
import { invocation } from '../base/message-marks.ts';
import { assertNarrowing } from '../table/filter-values.ts';

export const extract = defineCommand({
  name: 'extract',
  title: 'Extract',
  description:
    'Write entries still only in the zip into the folder (lazy sessions), for tools outside zipfs; zipfs tools ' +
    'need no extract.',
  input: v.strictObject({
    session: sessionParam,
    paths: v.optional(v.pipe(v.array(v.string()), v.description('Globs; default all'))),
  }),
  output: v.object({
    extracted: count('Written'),
    bytes: count('Bytes'),
    not_extracted: count('Files (not folders) still only in zip'),
    note: v.optional(text('Why nothing was extracted')),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: [],
    positionals: ['paths'],
    short: { session: 's' },
    example: "zipfs extract word/document.xml 'word/media/**'",
  },
  check: (input) => assertNarrowing(input.paths, 'paths', 'extract every entry left in the zip'),
  async run(input, context) {
    const { session } = context;
    const workspace = workspaceOf(session);
    // Paths and globs name entries (workspace/match-entries.ts); nothing named is PATH_NOT_FOUND.
    const done = await workspace.extract(input.paths, {
      home: context.home,
      limits: loadLimits(context.env),
      signal: context.signal,
    });
    if (done.extracted > 0) return done;
    // Nothing written is an answer an agent must be able to act on (issue 31): say why, and what does the job.
    const paths = input.paths ?? ['PATH'];
    const note =
      workspace.notExtracted() === undefined
        ? 'This session is not lazy: every entry is in the folder already.'
        : 'What was named is in the folder already; extract never overwrites a file there.';
    return {
      ...done,
      note:
        `${note} To put the zip's current version in the folder, use ` +
        `${invocation('restore', { paths, from: 'zip' })}; to read it without changing the file, ` +
        `${invocation('read', { path: paths[0] ?? 'PATH', version: 'zip' })}.`,
    };
  },
  note: (out) => (out.note ? `zipfs: ${out.note}` : undefined),
  render: (out) =>
    `Extracted ${plural(out.extracted, 'entry', 'entries')} (${humanBytes(out.bytes)}); ` +
    `${plural(out.not_extracted, 'file')} left in the zip.`,
});
