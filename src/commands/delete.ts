import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { deleteWorkspacePath } from '../files/edit.ts';
import { ZipfsError } from '../base/errors.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { flag, name, sessionParam } from './schemas.ts';

export const del = defineCommand({
  name: 'delete',
  title: 'Delete',
  description: 'Delete a file or folder; links are removed, never followed.',
  input: v.strictObject({
    session: sessionParam,
    path: v.pipe(v.string(), v.description('From the workspace root')),
    recursive: v.optional(v.pipe(v.boolean(), v.description('For a non-empty folder')), false),
  }),
  output: v.object({ deleted: flag('True'), path: name('Normalised') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path'],
    positionals: ['path'],
    short: { session: 's', recursive: 'r' },
    example: 'zipfs delete data/old -r',
  },
  async run(input, context) {
    const { session } = context;
    // Entries only in the archive are deleted there; what is on disk, from the folder.
    const fromZip = workspaceOf(session).removeArchived(input.path, input.recursive);
    let deleted: string;
    try {
      deleted = deleteWorkspacePath(session.contents, input.path, input.recursive);
    } catch (error) {
      if (!(fromZip > 0 && error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error;
      deleted = normaliseToolPath(input.path);
    }
    return { deleted: true, path: deleted };
  },
  render: (out) => `Deleted ${out.path}.`,
});
