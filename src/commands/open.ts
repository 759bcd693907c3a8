import * as v from 'valibot';
import { count, text } from './schemas.ts';
import { defineCommand } from '../command.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../limits.ts';
import { openArchive } from '../open/open-archive.ts';

export const open = defineCommand({
  name: 'open',
  title: 'Open a zip',
  description: 'Extract a zip into a new session\'s workspace.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Absolute, or from the working directory')),
    name: v.optional(v.pipe(v.string(), v.description('Default: zip base name'))),
    create: v.optional(v.pipe(v.boolean(), v.description('Start empty if none')), false),
  }),
  output: v.object({
    session_id: text('Id'),
    name: text('Name'),
    workspace_path: text('Its files'),
    file_count: count('Files'),
    extracted_size_bytes: count('Bytes'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs open reports.zip --name q4-report' },
  async run(input, context) {
    const session = await openArchive({ zipPath: input.path, name: input.name, create: input.create, home: context.home, limits: loadLimits(context.env), progress: context.progress, signal: context.signal });
    return {
      session_id: session.record.id,
      name: session.record.name,
      workspace_path: session.contents,
      file_count: session.record.file_count,
      extracted_size_bytes: session.record.extracted_size_bytes,
    };
  },
  render: (out) => `Opened session "${out.name}": ${plural(out.file_count, 'file')}, ${humanBytes(out.extracted_size_bytes)}\n${out.workspace_path}`,
});
