import path from 'node:path';
import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { humanBytes, table } from '../format/units.ts';
import { loadLimits } from '../limits.ts';
import { inspectArchive } from '../open/inspect-archive.ts';
import { workspaceTarget } from '../open/workspace-rules.ts';
import { count, name, text } from './schemas.ts';

export const inspect = defineCommand({
  name: 'inspect',
  title: 'Inspect a zip',
  description: 'Entries and warnings, without opening.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Zip path')),
    start: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('First entry index')), 0),
    max_entries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Page size')), 200),
  }),
  output: v.object({
    entries: v.pipe(
      v.array(
        v.object({
          name: name('As stored'),
          type: v.pipe(v.picklist(['file', 'dir', 'symlink']), v.description('Kind')),
          size: count('Bytes'),
          compressed_size: count('Bytes'),
          method: text('Compression'),
          modified_at: text('ISO time'),
        }),
      ),
      v.description('This page'),
    ),
    total_entries: count('Entries'),
    total_size: count('Bytes'),
    total_compressed: count('Bytes'),
    comment: name('Comment'),
    warnings: v.pipe(v.array(v.string()), v.description('Empty: opens cleanly')),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs inspect download.zip --max-entries 20' },
  run(input, context) {
    // Open's checks as they would run for a session under this data folder: its case folding, its path length.
    return inspectArchive(path.resolve(input.path), loadLimits(context.env), workspaceTarget(context.home, false), { start: input.start, max: input.max_entries });
  },
  render(out, paint) {
    const rows = out.entries.map((e) => [e.type, humanBytes(e.size), humanBytes(e.compressed_size), e.method, e.name]);
    const lines = [table([['TYPE', 'SIZE', 'PACKED', 'METHOD', 'NAME'], ...rows], [1, 2]), '', `${out.total_entries} entries, ${humanBytes(out.total_size)} from ${humanBytes(out.total_compressed)}`];
    if (out.comment) lines.push(`comment: ${out.comment}`);
    for (const warning of out.warnings) lines.push(paint.yellow(`warning: ${warning}`));
    return lines.join('\n');
  },
  note: (out) => (out.entries.length < out.total_entries ? `zipfs: showing ${out.entries.length} of ${out.total_entries} entries; page with --start and --max-entries` : undefined),
});
