import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { moveWorkspacePath } from '../files/move.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { loadLimits } from '../rules/limits.ts';
import { flag, name, sessionParam } from './schemas.ts';

export const move = defineCommand({
  name: 'move',
  title: 'Move',
  description: 'Rename a file or folder.',
  input: v.strictObject({
    session: sessionParam,
    from: v.pipe(v.string(), v.description('Existing path')),
    to: v.pipe(v.string(), v.description('New path')),
    overwrite: v.optional(v.pipe(v.boolean(), v.description('Replace the target')), false),
  }),
  output: v.object({ moved: flag('True'), from: name('Normalised'), to: name('Normalised') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['from', 'to'],
    positionals: ['from', 'to'],
    short: { session: 's' },
    aliases: ['mv'],
    example: 'zipfs mv data/old.csv archive/2024.csv',
  },
  async run(input, context) {
    const { session } = context;
    // Both ends prepared, so a target only in the archive is on disk to refuse or replace.
    await workspaceOf(session).prepareChange([input.from, input.to], {
      home: context.home,
      limits: loadLimits(context.env),
    });
    const moved = moveWorkspacePath(session.contents, input.from, input.to, input.overwrite);
    return { moved: true, ...moved };
  },
  render: (out) => `Moved ${out.from} to ${out.to}.`,
});
