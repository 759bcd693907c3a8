import * as v from 'valibot';
import { count, flag, name, text } from './schemas.ts';
import { defineCommand } from '../command.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../limits.ts';
import { openArchive } from '../open/open-archive.ts';
import { sessionOf } from '../session/session-store.ts';

export const open = defineCommand({
  name: 'open',
  title: 'Open a zip',
  description: 'Extract a zip into a session\'s workspace.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Zip file path')),
    name: v.optional(v.pipe(v.string(), v.description('Default: zip base name'))),
    create: v.optional(v.pipe(v.boolean(), v.description('Start empty if none')), false),
  }),
  output: v.object({
    session_id: text('Id'),
    name: text('Name'),
    workspace_path: name('Its files'),
    file_count: count('Files'),
    extracted_size_bytes: count('Bytes'),
    already_open: v.optional(flag('Reused')),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs open reports.zip --name q4-report' },
  async run(input, context) {
    // The same zip opened again (without asking for another session by name) is the session it already has:
    // a second one would silently conflict with the first on the next sync.
    const existing = input.name === undefined ? sessionOf(context.home, input.path) : undefined;
    const session = existing ?? (await openArchive({ zipPath: input.path, name: input.name, create: input.create, home: context.home, limits: loadLimits(context.env), progress: context.progress, signal: context.signal }));
    const result = {
      session_id: session.record.id,
      name: session.record.name,
      workspace_path: session.contents,
      file_count: session.record.file_count,
      extracted_size_bytes: session.record.extracted_size_bytes,
    };
    return existing ? { ...result, already_open: true } : result;
  },
  render: (out) => `${out.already_open ? `Already open as session "${out.name}" (to open another, give it a name with --name)` : `Opened session "${out.name}"`}: ${plural(out.file_count, 'file')}, ${humanBytes(out.extracted_size_bytes)}\n${out.workspace_path}`,
});
