import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { readManifest } from '../session/manifest.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { diffWorkspace } from '../sync/workspace-diff.ts';
import { count, name, names, sessionParam, text } from './schemas.ts';

export const status = defineCommand({
  name: 'status',
  title: 'Status',
  description:
    'Changes since open or last sync.',
  input: v.strictObject({ session: sessionParam }),
  output: v.object({
    modified: names('Folders end in /'),
    added: names('New'),
    deleted: names('Removed'),
    unchanged_count: count('Entries'),
    unsupported: v.optional(v.pipe(v.array(v.object({ path: name('Path'), reason: text('And the fix') })), v.description('Sync refuses these'))),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: {
    positionals: ['session'],
    short: { session: 's' },
    example: 'zipfs status --exit-code || zipfs sync',
    flags: { 'exit-code': 'Exit with 1 when there are changes (for scripts)' },
    exitCode: (out, flags) => (flags['exit-code'] && out.modified.length + out.added.length + out.deleted.length > 0 ? 1 : 0),
  },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    const diff = diffWorkspace(session.contents, readManifest(session.manifest));
    const result = { modified: diff.modified, added: diff.added, deleted: diff.deleted, unchanged_count: diff.unchangedCount };
    return diff.unsupported.length > 0 ? { ...result, unsupported: diff.unsupported } : result;
  },
  render: (out, paint) => [...out.modified.map((p) => paint.yellow(`M ${p}`)), ...out.added.map((p) => paint.green(`A ${p}`)), ...out.deleted.map((p) => paint.red(`D ${p}`))].join('\n'),
  note(out) {
    if (out.unsupported) return out.unsupported.map((u) => `zipfs: sync will refuse ${u.path}: ${u.reason}.`).join('\n');
    return out.modified.length + out.added.length + out.deleted.length === 0 ? `Nothing to sync: ${plural(out.unchanged_count, 'entry', 'entries')} unchanged.` : undefined;
  },
});
