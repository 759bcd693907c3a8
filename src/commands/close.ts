import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { ZipfsError } from '../errors.ts';
import { withSessionLock } from '../session/lock.ts';
import { readManifest } from '../session/manifest.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { removeSession } from '../session/session-store.ts';
import { recoverInterruptedSync, syncSession } from '../sync/sync-archive.ts';
import { diffWorkspace } from '../sync/workspace-diff.ts';
import { sessionParam } from './schemas.ts';

export const close = defineCommand({
  name: 'close',
  title: 'Close a session',
  description:
    'Close a session and remove its workspace folder. With sync, the changes are synced first and the session closes only if that succeeds; without it, a workspace with unsynced changes is kept unless force.',
  input: v.strictObject({
    session: sessionParam,
    sync: v.optional(v.pipe(v.boolean(), v.description('Sync changes back to the zip before closing')), false),
    force: v.optional(v.pipe(v.boolean(), v.description('Without sync: discard unsynced changes. With sync: sync even if the zip changed meanwhile')), false),
  }),
  output: v.object({ closed: v.boolean(), synced: v.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['session'], short: { session: 's' }, example: 'zipfs close q4-report --sync' },
  async run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    return withSessionLock(session, 'close', async () => {
      let synced = false;
      if (input.sync) {
        synced = (await syncSession({ session, force: input.force, dryRun: false, progress: context.progress })).synced;
      } else if (!input.force) {
        recoverInterruptedSync(session);
        const diff = diffWorkspace(session.contents, readManifest(session.manifest));
        const pending = diff.modified.length + diff.added.length + diff.deleted.length;
        if (pending > 0) {
          throw new ZipfsError(
            'UNSYNCED_CHANGES',
            `Session "${session.record.name}" has unsynced changes (${diff.modified.length} modified, ${diff.added.length} added, ${diff.deleted.length} deleted). Pass sync=true to save them into the zip first, or force=true to discard them (CLI: --sync or --force).`,
          );
        }
      }
      removeSession(session);
      return { closed: true, synced };
    });
  },
  render: (out) => (out.synced ? 'Synced and closed.' : 'Closed.'),
});
