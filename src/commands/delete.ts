import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { deleteWorkspacePath } from '../files/edit.ts';
import { withSessionLock } from '../session/lock.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { sessionParam } from './schemas.ts';

export const del = defineCommand({
  name: 'delete',
  title: 'Delete a file or folder',
  description: 'Delete a file or folder from a session\'s workspace; a folder that is not empty needs recursive. Symbolic links are removed, never followed.',
  input: v.strictObject({
    session: sessionParam,
    path: v.pipe(v.string(), v.minLength(1), v.description('File or folder to delete, relative to the workspace root')),
    recursive: v.optional(v.pipe(v.boolean(), v.description('Delete a folder and everything in it')), false),
  }),
  output: v.object({ deleted: v.boolean(), path: v.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['path'], short: { session: 's', recursive: 'r' }, example: 'zipfs delete data/old -r' },
  async run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    const deleted = await withSessionLock(session, 'delete', () => deleteWorkspacePath(session.contents, input.path, input.recursive));
    return { deleted: true, path: deleted };
  },
  render: (out) => `Deleted ${out.path}.`,
});
