import * as v from 'valibot';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { defineCommand } from '../table/command.ts';
import { makeWorkspaceFolder } from '../files/make-folder.ts';
import { flag, name, sessionParam, workspacePathParam } from './schemas.ts';

export const mkdir = defineCommand({
  name: 'mkdir',
  title: 'Make a folder',
  description: 'Make a folder and its parents.',
  input: v.strictObject({
    session: sessionParam,
    path: workspacePathParam('Folder to make'),
    parents: v.optional(v.pipe(v.boolean(), v.description('Make missing parents')), true),
  }),
  output: v.object({ created: flag('False if it was there'), path: name('Normalised') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path'],
    positionals: ['path'],
    short: { session: 's' },
    example: 'zipfs mkdir META-INF/extra',
  },
  async run(input, context) {
    const { session } = context;
    // A folder only in the archive is there: its parent need not be asked for.
    if (!input.parents) workspaceOf(session).prepareFolderOf(input.path);
    const made = makeWorkspaceFolder(session.contents, input.path, input.parents);
    return { created: made.created, path: made.relative };
  },
  render: (out) => (out.created ? `Made ${out.path}/.` : `${out.path}/ was already there.`),
});
