import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { plural } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { restorePaths } from '../sync/restore-paths.ts';
import { count, name, sessionParam, text } from './schemas.ts';

/** The most paths the answer lists: the counts give the rest. */
const LISTED = 200;

export const restore = defineCommand({
  name: 'restore',
  title: 'Restore',
  description: 'Put files back as the zip has them now, or the base (git restore --source); to resolve conflicts.',
  input: v.strictObject({
    session: sessionParam,
    paths: v.pipe(v.array(v.string()), v.minLength(1), v.description('Paths, folders or globs')),
    from: v.optional(v.pipe(v.picklist(['zip', 'base']), v.description('Default zip')), 'zip'),
  }),
  output: v.object({
    from: text('zip or base'),
    restored: v.pipe(
      v.array(v.object({ path: name('Path'), action: text('written, deleted, unchanged') })),
      v.description(`First ${LISTED}`),
    ),
    written: count('Files written'),
    deleted: count('Paths deleted'),
    unchanged: count('Already so'),
    skipped: v.optional(
      v.pipe(v.array(v.object({ path: name('Path or pattern'), reason: text('Why') })), v.description('Left as is')),
    ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: [],
    positionals: ['paths'],
    short: { session: 's' },
    example: 'zipfs restore index.html --from zip',
  },
  async run(input, context) {
    const { session } = context;
    recoverInterruptedSync(session);
    const answer = await restorePaths(session, input.paths, input.from, loadLimits(context.env));
    const tally = (action: string) => answer.restored.filter((done) => done.action === action).length;
    return {
      from: input.from,
      restored: answer.restored.slice(0, LISTED),
      written: tally('written'),
      deleted: tally('deleted'),
      unchanged: tally('unchanged'),
      ...(answer.skipped.length > 0 ? { skipped: answer.skipped.slice(0, LISTED) } : {}),
    };
  },
  render(out) {
    const rows = out.restored
      .filter((done) => done.action !== 'unchanged')
      .map((done) => `${done.action === 'written' ? 'R' : 'D'} ${done.path}`);
    const skipped = (out.skipped ?? []).map((s) => `skipped ${s.path}: ${s.reason}`);
    const summary =
      `Restored from the ${out.from}: ${plural(out.written, 'file')} written, ${out.deleted} deleted, ` +
      `${out.unchanged} already so.`;
    return [...rows, ...skipped, summary].join('\n');
  },
});
