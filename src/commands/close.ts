import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { ZipfsError } from '../errors.ts';
import { resolveSession } from '../workspace/resolve-session.ts';
import { removeSession } from '../workspace/session-store.ts';
import { sessionParam } from './schemas.ts';

export const close = defineCommand({
  name: 'close',
  title: 'Close a session',
  description: 'Close a session and remove its workspace folder.',
  input: v.strictObject({
    session: sessionParam,
    sync: v.optional(v.pipe(v.boolean(), v.description('Sync changes back to the zip before closing')), false),
  }),
  output: v.object({ closed: v.boolean(), synced: v.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['session'], short: { session: 's' }, example: 'zipfs close q4-report' },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    if (input.sync) {
      throw new ZipfsError('SYNC_FAILED', `Session "${session.record.name}" was not closed: sync is not available in this version of zipfs. Copy your changes out of ${session.contents} first, then close without sync.`);
    }
    removeSession(session);
    return { closed: true, synced: false };
  },
  render: (out) => (out.synced ? 'Synced and closed.' : 'Closed.'),
});
