import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { readManifest } from '../session/manifest.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { diffWorkspace, type Unsupported } from '../sync/workspace-diff.ts';
import { itemChars, pageFields, limitParam, nextOffsetField, offsetParam, pageNote, takePage, totalField } from '../paging.ts';
import { count, name, names, sessionParam, text } from './schemas.ts';

/** One changed path as paging counts it: the three lists are one run, modified, then added, then deleted. */
type Change = { list: 'modified' | 'added' | 'deleted'; path: string; unsupported?: Unsupported };

export const status = defineCommand({
  name: 'status',
  title: 'Status',
  description:
    'Changes since open or last sync.',
  input: v.strictObject({ session: sessionParam, offset: offsetParam, limit: limitParam('paths') }),
  output: v.object({
    modified: names('Folders end in /'),
    added: names('New'),
    deleted: names('Removed'),
    unchanged_count: count('Entries'),
    unsupported: v.optional(v.pipe(v.array(v.object({ path: name('Path'), reason: text('And the fix') })), v.description('Sync refuses these (of this page)'))),
    total: totalField('changed paths'),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: {
    positionals: ['session'],
    short: { session: 's' },
    example: 'zipfs status --exit-code || zipfs sync',
    flags: { 'exit-code': 'Exit with 1 when there are changes (for scripts)' },
    exitCode: (out, flags) => (flags['exit-code'] && (out.total ?? out.modified.length + out.added.length + out.deleted.length) > 0 ? 1 : 0),
  },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    const diff = diffWorkspace(session.contents, readManifest(session.manifest));
    const refused = new Map(diff.unsupported.map((u) => [u.path, u]));
    const changes: Change[] = (['modified', 'added', 'deleted'] as const).flatMap((list) => diff[list].map((path) => ({ list, path, unsupported: refused.get(path) })));
    // What sync would refuse is told beside its path (it is always a modified or added one), on the page that lists it.
    const build = (page: Change[], next: number | undefined) => {
      const pick = (list: Change['list']) => page.filter((c) => c.list === list).map((c) => c.path);
      const unsupported = page.flatMap((c) => (c.unsupported ? [c.unsupported] : []));
      const result = { modified: pick('modified'), added: pick('added'), deleted: pick('deleted'), unchanged_count: diff.unchangedCount };
      return { ...result, ...(unsupported.length > 0 ? { unsupported } : {}), ...pageFields(changes.length, input.offset, next) };
    };
    return takePage(changes, input, context.maxAnswerBytes, build, (c) => itemChars(c.path) + (c.unsupported ? itemChars(c.unsupported) : 0));
  },
  render: (out, paint) => [...out.modified.map((p) => paint.yellow(`M ${p}`)), ...out.added.map((p) => paint.green(`A ${p}`)), ...out.deleted.map((p) => paint.red(`D ${p}`))].join('\n'),
  note(out) {
    const notes = (out.unsupported ?? []).map((u) => `zipfs: sync will refuse ${u.path}: ${u.reason}.`);
    const more = pageNote('changed paths', out.total, out.next_offset);
    if (more) notes.push(more);
    if ((out.total ?? out.modified.length + out.added.length + out.deleted.length) === 0) notes.push(`Nothing to sync: ${plural(out.unchanged_count, 'entry', 'entries')} unchanged.`);
    return notes.length > 0 ? notes.join('\n') : undefined;
  },
});
