import path from 'node:path';
import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { humanBytes, table } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { inspectArchive } from '../open/inspect-archive.ts';
import { workspaceTarget } from '../open/workspace-rules.ts';
import { continuation, limitParam, nextOffsetField, offsetParam, pageNote, takePage } from '../table/paging.ts';
import { count, name, text } from './schemas.ts';

export const inspect = defineCommand({
  name: 'inspect',
  title: 'Inspect a zip',
  description: 'Entries and warnings, without opening.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Zip path')),
    // start and max_entries came first; offset and limit are the names every paged tool takes.
    start: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('= offset')), 0),
    max_entries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('= limit')), 200),
    offset: offsetParam,
    limit: limitParam('entries (200)'),
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
          encrypted: v.optional(text('Encryption')),
        }),
      ),
      v.description('This page'),
    ),
    total_entries: count('Entries'),
    total_size: count('Bytes'),
    total_compressed: count('Bytes'),
    comment: name('Comment'),
    warnings: v.pipe(v.array(v.string()), v.description('Empty: opens cleanly')),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs inspect download.zip --max-entries 20' },
  run(input, context) {
    // Open's checks as they would run for a session under this data folder: its case folding, its path length.
    const offset = input.offset ?? input.start;
    const found = inspectArchive(
      path.resolve(input.path),
      loadLimits(context.env),
      workspaceTarget(context.home, false),
      { start: offset, max: input.limit ?? input.max_entries },
    );
    // The page asked for, cut further to what fits the answer; next_offset counts from the archive's first entry.
    return takePage(found.entries, {}, context.maxAnswerBytes, (entries) => {
      const end = Math.min(offset, found.total_entries) + entries.length;
      return { ...found, entries, ...continuation(end < found.total_entries ? end : undefined) };
    });
  },
  render(out, paint) {
    const rows = out.entries.map((e) => [
      e.type,
      humanBytes(e.size),
      humanBytes(e.compressed_size),
      e.encrypted ? `${e.method}+${e.encrypted}` : e.method,
      e.name,
    ]);
    const lines = [
      table([['TYPE', 'SIZE', 'PACKED', 'METHOD', 'NAME'], ...rows], [1, 2]),
      '',
      `${out.total_entries} entries, ${humanBytes(out.total_size)} from ${humanBytes(out.total_compressed)}`,
    ];
    if (out.comment) lines.push(`comment: ${out.comment}`);
    for (const warning of out.warnings) lines.push(paint.yellow(`warning: ${warning}`));
    return lines.join('\n');
  },
  note: (out) => pageNote('entries', out.total_entries, out.next_offset),
});
