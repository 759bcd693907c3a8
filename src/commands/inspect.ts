import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { isRemote } from '../remote/remote-url.ts';
import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { humanBytes, table } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { inspectArchive } from '../open/inspect-archive.ts';
import { workspaceTarget } from '../open/workspace-rules.ts';
import { continuation, limitParam, nextOffsetField, offsetParam, pageNote, takePage } from '../table/paging.ts';
import { count, name, nameEncodingParam, text } from './schemas.ts';

/** Past these, open with lazy is suggested: extracting all of it costs more than an agent's task needs. */
export const LAZY_ABOVE_ENTRIES = 10_000;
export const LAZY_ABOVE_BYTES = 1024 ** 3;

/**
 * A page's characters over MCP when no limit was asked for: about 70 entries, a look at the archive, not all of it
 * (200 entries took 33,600 characters). A limit asked for gets the whole answer budget.
 */
const GLANCE_CHARS = 12_000;

function lazySuggestion(entries: number, bytes: number): string | undefined {
  if (entries <= LAZY_ABOVE_ENTRIES && bytes <= LAZY_ABOVE_BYTES) return undefined;
  const size = entries > LAZY_ABOVE_ENTRIES ? `${entries} entries` : `${humanBytes(bytes)} uncompressed`;
  return (
    `${size}: open it with lazy: true (--lazy), which extracts nothing; ls, tree, read and grep reach the entries in ` +
    `the zip, delete, move and edit take what they change, and extract puts what other tools need in the folder.`
  );
}

export const inspect = defineCommand({
  name: 'inspect',
  title: 'Inspect a zip',
  description:
    `Entries and warnings, without opening; past ${LAZY_ABOVE_ENTRIES} entries or 1 GiB it suggests ` +
    'opening lazily.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Zip path')),
    // start and max_entries came first; offset and limit are the names every paged tool takes.
    start: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('= offset')), 0),
    max_entries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('= limit')), 200),
    offset: offsetParam,
    limit: limitParam('entries (200)'),
    name_encoding: nameEncodingParam,
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
    suggestion: v.optional(text('How to open it: lazy, when big')),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['path'], example: 'zipfs inspect download.zip --max-entries 20' },
  run(input, context) {
    context.zips?.assert(input.path);
    // Open's checks as they would run for a session under this data folder: its case folding, its path length.
    const offset = input.offset ?? input.start;
    if (isRemote(input.path))
      throw new ZipfsError(
        'INVALID_INPUT',
        'inspect reads a zip on this machine; open the URL instead (lazily: it fetches only the central directory), ' +
          'then ls and tree list its entries.',
      );
    const found = inspectArchive(
      path.resolve(input.path),
      loadLimits(context.env),
      workspaceTarget(context.home, false),
      { start: offset, max: input.limit ?? input.max_entries },
      input.name_encoding,
    );
    const suggestion = lazySuggestion(found.total_entries, found.total_size);
    const asked = input.limit !== undefined || input.max_entries !== 200;
    const budget =
      context.maxAnswerBytes === undefined || asked
        ? context.maxAnswerBytes
        : Math.min(GLANCE_CHARS, context.maxAnswerBytes);
    // The page asked for, cut further to what fits the answer; next_offset counts from the archive's first entry.
    return takePage(found.entries, {}, budget, (entries) => {
      const end = Math.min(offset, found.total_entries) + entries.length;
      return {
        ...found,
        entries,
        ...(suggestion ? { suggestion } : {}),
        ...continuation(end < found.total_entries ? end : undefined),
      };
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
    if (out.suggestion) lines.push(`hint: ${out.suggestion.replace('lazy: true (--lazy)', '--lazy')}`);
    return lines.join('\n');
  },
  note: (out) => pageNote('entries', out.total_entries, out.next_offset),
});
