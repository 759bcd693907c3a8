import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { lazyEntries, notExtractedCount } from '../session/lazy-session.ts';
import { extractEntries } from '../workspace/extract-entries.ts';
import { matchEntries } from '../open/open-lazy.ts';
import { count, sessionParam } from './schemas.ts';
import { assertNarrowing } from '../table/filter-values.ts';

export const extract = defineCommand({
  name: 'extract',
  title: 'Extract',
  description: 'Put lazy entries in the folder.',
  input: v.strictObject({
    session: sessionParam,
    paths: v.optional(v.pipe(v.array(v.string()), v.description('Globs; default all'))),
  }),
  output: v.object({
    extracted: count('Written'),
    bytes: count('Bytes'),
    not_extracted: count('Still lazy'),
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
    const lazy = lazyEntries(session);
    // An eager session has everything extracted already.
    if (!lazy) return { extracted: 0, bytes: 0, not_extracted: 0 };
    const chosen = input.paths?.length
      ? matchEntries(lazy, input.paths)
      : Array.from({ length: lazy.count }, (_, i) => i);
    const done = await extractEntries(session, lazy, chosen, context.home, loadLimits(context.env), context.signal);
    return { extracted: done.count, bytes: done.bytes, not_extracted: notExtractedCount(session) };
  },
  render: (out) =>
    `Extracted ${plural(out.extracted, 'entry', 'entries')} (${humanBytes(out.bytes)}); ${plural(out.not_extracted, 'entry', 'entries')} left in the zip.`,
});
