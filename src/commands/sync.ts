import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { withSessionLock } from '../session/lock.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { syncSession } from '../sync/sync-archive.ts';
import { backupParam, sessionParam } from './schemas.ts';

export const sync = defineCommand({
  name: 'sync',
  title: 'Write changes back to the zip',
  description:
    'Write the workspace\'s changes back into the source zip, atomically, keeping the previous archive as <zip>.bak (unless backup is false). Unchanged entries are copied byte for byte. Refuses with CONFLICT_DETECTED if the zip changed since it was opened, unless force.',
  input: v.strictObject({
    session: sessionParam,
    force: v.optional(v.pipe(v.boolean(), v.description('Overwrite the zip even if it changed since it was opened, or re-create it if it is gone')), false),
    dry_run: v.optional(v.pipe(v.boolean(), v.description('Report what would be written, write nothing')), false),
    backup: backupParam,
  }),
  output: v.object({
    synced: v.boolean(),
    backup_path: v.nullable(v.string()),
    files_modified: v.number(),
    files_added: v.number(),
    files_deleted: v.number(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['session'], short: { session: 's' }, example: 'zipfs sync --dry-run' },
  async run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    return withSessionLock(session, 'sync', () => syncSession({ session, force: input.force, dryRun: input.dry_run, backup: input.backup, progress: context.progress }));
  },
  render(out) {
    const counts = `${out.files_modified} modified, ${out.files_added} added, ${out.files_deleted} deleted`;
    if (!out.synced) return `Would sync ${counts} (dry run: nothing written).`;
    if (out.backup_path === null && out.files_modified + out.files_added + out.files_deleted === 0) return 'Nothing to sync: the zip already matches the workspace.';
    return `Synced ${counts}.${out.backup_path ? ` Previous archive kept as ${out.backup_path}` : ''}`;
  },
});
