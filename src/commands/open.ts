import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../limits.ts';
import { openArchive } from '../open/open-archive.ts';

export const open = defineCommand({
  name: 'open',
  title: 'Open a zip archive',
  description: 'Extract a zip archive into a new workspace session and return where its files are.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.minLength(1), v.description('Path to the zip file (absolute, or relative to the working directory)')),
    name: v.optional(v.pipe(v.string(), v.description('Session name (default: the zip file name without extension)'))),
  }),
  output: v.object({
    session_id: v.string(),
    name: v.string(),
    workspace_path: v.string(),
    file_count: v.number(),
    extracted_size_bytes: v.number(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs open reports.zip --name q4-report' },
  async run(input, context) {
    const session = await openArchive({ zipPath: input.path, name: input.name, home: context.home, limits: loadLimits(context.env), progress: context.progress });
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
