import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { readManifest } from '../session/manifest.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { diffWorkspace } from '../sync/workspace-diff.ts';
import { count, flag, name, names, sessionParam, text } from './schemas.ts';

function changeCount(out: { modified: string[]; added: string[]; deleted: string[]; renamed?: unknown[] }): number {
  return out.modified.length + out.added.length + out.deleted.length + (out.renamed?.length ?? 0);
}

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
    renamed: v.optional(v.pipe(v.array(v.object({ from: name('Old path'), to: name('New path'), modified: v.optional(flag('Content changed too')) })), v.description('Moved entries; not in added or deleted'))),
    unchanged_count: count('Entries'),
    unsupported: v.optional(v.pipe(v.array(v.object({ path: name('Path'), reason: text('And the fix') })), v.description('Sync refuses these'))),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: {
    positionals: ['session'],
    short: { session: 's' },
    example: 'zipfs status --exit-code || zipfs sync',
    flags: { 'exit-code': 'Exit with 1 when there are changes (for scripts)' },
    exitCode: (out, flags) => (flags['exit-code'] && changeCount(out) > 0 ? 1 : 0),
  },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    const diff = diffWorkspace(session.contents, readManifest(session.manifest));
    return {
      modified: diff.modified,
      added: diff.added,
      deleted: diff.deleted,
      ...(diff.renamed.length > 0 ? { renamed: diff.renamed } : {}),
      unchanged_count: diff.unchangedCount,
      ...(diff.unsupported.length > 0 ? { unsupported: diff.unsupported } : {}),
    };
  },
  // As git status --short: R (RM when the content changed too) old -> new.
  render: (out, paint) =>
    [
      ...out.modified.map((p) => paint.yellow(`M ${p}`)),
      ...(out.renamed ?? []).map((r) => paint.cyan(`${r.modified ? 'RM' : 'R'} ${r.from} -> ${r.to}`)),
      ...out.added.map((p) => paint.green(`A ${p}`)),
      ...out.deleted.map((p) => paint.red(`D ${p}`)),
    ].join('\n'),
  note(out) {
    if (out.unsupported) return out.unsupported.map((u) => `zipfs: sync will refuse ${u.path}: ${u.reason}.`).join('\n');
    return changeCount(out) === 0 ? `Nothing to sync: ${plural(out.unchanged_count, 'entry', 'entries')} unchanged.` : undefined;
  },
});
