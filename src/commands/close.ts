import * as v from 'valibot';
import { defineCommand, lockWait } from '../table/command.ts';
import { ZipfsError, quote } from '../base/errors.ts';
import { loadLimits } from '../rules/limits.ts';
import { withSessionLock } from '../session/lock.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { removeSession, removeSessionFolder, scanWorkspaces } from '../session/session-store.ts';
import { recoverInterruptedSync, syncSession } from '../sync/sync-archive.ts';
import { removeZipLeftovers } from '../sync/zip-leftovers.ts';
import { lookAtWorkspace } from '../sync/status-look.ts';
import { backupParam, count, flag, sessionParam, text } from './schemas.ts';
import { param } from '../base/message-marks.ts';
import { zipPlace } from '../session/manifest.ts';

export const close = defineCommand({
  name: 'close',
  title: 'Close',
  description: 'Remove a session; unsynced changes need sync or force.',
  input: v.strictObject({
    session: sessionParam,
    sync: v.optional(v.pipe(v.boolean(), v.description('Sync first')), false),
    force: v.optional(v.pipe(v.boolean(), v.description('Discard changes; with sync, overwrite a changed zip')), false),
    backup: backupParam,
  }),
  output: v.object({
    closed: flag('True'),
    synced: flag('Synced first'),
    name: text('Session'),
    // With sync: what zipfs_sync would have answered, so a script loses nothing by closing in the same call.
    sync: v.optional(
      v.pipe(
        v.object({
          backup_path: v.pipe(v.nullable(v.string()), v.description('Old zip')),
          files_modified: count('Paths'),
          files_added: count('Paths'),
          files_deleted: count('Paths'),
          files_renamed: v.optional(count('Moved')),
          method_changed: v.optional(v.pipe(v.array(v.string()), v.description('Rewritten as deflate'))),
        }),
        v.description('With sync: its counts'),
      ),
    ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  cli: { message: true, positionals: ['session'], short: { session: 's' }, example: 'zipfs close q4-report --sync' },
  async run(input, context) {
    const discard = input.force && !input.sync;
    // A damaged session cannot be resolved, but it can still be removed when named with force.
    if (discard && input.session !== undefined) {
      const broken = scanWorkspaces(context.home).damaged.find((d) => d.name === input.session);
      if (broken) {
        removeSessionFolder(broken.dir);
        return { closed: true, synced: false, name: broken.name };
      }
    }
    const session = resolveSession(context.home, input.session, context.hints, { intact: !discard });
    context.zips?.assert(zipPlace(session.record), `Session ${quote(session.record.name)}'s zip`);
    return withSessionLock(
      session,
      'close',
      async () => {
        let synced = false;
        let sync:
          | {
              backup_path: string | null;
              files_modified: number;
              files_added: number;
              files_deleted: number;
              files_renamed?: number;
              method_changed?: string[];
            }
          | undefined;
        if (input.sync) {
          const result = await syncSession({
            session,
            force: input.force,
            dryRun: false,
            backup: input.backup,
            progress: context.progress,
            signal: context.signal,
            wait: lockWait(context),
            limits: loadLimits(context.env),
          });
          synced = result.synced;
          sync = {
            backup_path: result.backup_path,
            files_modified: result.files_modified,
            files_added: result.files_added,
            files_deleted: result.files_deleted,
            // As sync answers it: only when there were renames.
            ...(result.files_renamed ? { files_renamed: result.files_renamed } : {}),
            ...(result.method_changed ? { method_changed: result.method_changed } : {}),
          };
        } else if (!input.force) {
          recoverInterruptedSync(session);
          const { diff } = lookAtWorkspace(session);
          const pending = diff.modified.length + diff.added.length + diff.deleted.length + diff.renamed.length;
          if (pending > 0) {
            throw new ZipfsError(
              'UNSYNCED_CHANGES',
              `Session "${session.record.name}" has unsynced changes (${diff.modified.length} modified, ` +
                `${diff.added.length} added, ${diff.deleted.length} deleted` +
                `${diff.renamed.length ? `, ${diff.renamed.length} renamed` : ''}). ` +
                `Pass ${param('sync')} to save them into the zip first, or ${param('force')} to discard them.`,
            );
          }
        }
        removeSession(session);
        removeZipLeftovers(session.record.source_path);
        return sync
          ? { closed: true, synced, name: session.record.name, sync }
          : { closed: true, synced, name: session.record.name };
      },
      lockWait(context),
    );
  },
  render: (out) =>
    out.sync
      ? `Synced (${out.sync.files_modified} modified, ${out.sync.files_added} added, ` +
        `${out.sync.files_deleted} deleted` +
        `${out.sync.files_renamed ? `, ${out.sync.files_renamed} renamed` : ''}` +
        `${out.sync.backup_path ? `; previous archive kept as ${out.sync.backup_path}` : ''}) ` +
        `and closed session "${out.name}".`
      : `Closed session "${out.name}".`,
});
