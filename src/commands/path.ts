import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { count, sessionParam, text } from './schemas.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';

export const path = defineCommand({
  name: 'path',
  title: 'Workspace folder',
  description: "A session's files folder, for other tools.",
  input: v.strictObject({ session: sessionParam }),
  output: v.object({ path: text('Absolute'), not_extracted: v.optional(count('Files (not folders) in zip only')) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: { positionals: ['session'], short: { session: 's' }, example: 'cd "$(zipfs path q4-report)"' },
  run(input, context) {
    const { session } = context;
    const notExtracted = workspaceOf(session).notExtracted();
    return { path: session.contents, ...(notExtracted === undefined ? {} : { not_extracted: notExtracted }) };
  },
  // stdout stays the bare path (`cd "$(zipfs path)"`); what other tools will not find there goes to stderr.
  render: (out) => out.path,
  note: (out) =>
    out.not_extracted
      ? `zipfs: not all extracted: ${out.not_extracted} files are only in the zip, not in this folder; other tools ` +
        `see them after zipfs extract.`
      : undefined,
});
