import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { ZipfsError, quote } from '../base/errors.ts';
import { loadLimits } from '../rules/limits.ts';
import { resolveExisting } from '../files/safe-path.ts';
import fs from 'node:fs';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { withBeneath } from '../files/beneath.ts';
import { readPage } from '../files/read-page.ts';
import { TEXT_ENCODINGS, type TextEncoding } from '../files/text-encoding.ts';
import { param } from '../base/message-marks.ts';
import { nextOffsetField, textChars } from '../table/paging.ts';
import { count, sessionParam, text } from './schemas.ts';
import { lockedByOther } from '../session/lock.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { withVersion, type VersionName } from '../workspace/versions.ts';
import { archivedFile, versionFile } from '../workspace/version-files.ts';
import type { CommandContext } from '../table/command.ts';

/** The largest page, whatever `limit` asks: a larger one is clamped, and remaining_bytes says what is left. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;
/** What the answer's other fields take over MCP (twice, as all of it): the content gets the rest of the budget. */
const FIELDS_CHARS = 1_000;

const readInput = v.strictObject({
  session: sessionParam,
  path: v.pipe(v.string(), v.description('From the workspace root')),
  version: v.optional(
    v.pipe(v.picklist(['workspace', 'zip', 'base']), v.description('zip: as on disk now; base: as at open/last sync')),
    'workspace',
  ),
  // utf-8, the default, gives way to a byte-order mark; the others are for files without one (file-encoding.ts).
  encoding: v.optional(
    v.pipe(v.picklist([...TEXT_ENCODINGS, 'base64']), v.description('A BOM wins; base64: bytes')),
    'utf-8',
  ),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Start byte'))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Default 262144; cut to fit'))),
  start_line: v.optional(v.pipe(v.number(), v.integer(), v.description('1-based; -20: last 20'))),
  end_line: v.optional(v.pipe(v.number(), v.integer(), v.description('Inclusive'))),
});
type ReadInput = v.InferOutput<typeof readInput>;

export const read = defineCommand({
  name: 'read',
  title: 'Read',
  description:
    'Read a file, a page at a time: text, or base64 if binary. Works on entries not extracted; version reads the ' +
    'zip now or the base (to resolve a conflict).',
  input: readInput,
  output: v.object({
    content: text('Page'),
    size_bytes: count('File size'),
    // The input's enum names the values; here a string is enough (the list twice costs every agent's context).
    encoding: v.pipe(v.string(), v.description('Of content, as in the input')),
    offset: count('Page start'),
    bytes_read: count('Page bytes'),
    remaining_bytes: count('After the page'),
    sha256: text('Whole file, for edit'),
    total_lines: v.optional(count('In file')),
    start_line: v.optional(count('First line')),
    end_line: v.optional(count('Last line')),
    next_offset: nextOffsetField,
    next_start_line: v.optional(count('Lines: absent at the end')),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    workspacePaths: ['path'],
    positionals: ['path'],
    short: { session: 's' },
    // --version is the program's.
    flagNames: { version: 'from' },
    example: 'zipfs read logo.png --offset 0 --limit 1024 > head.bin',
    rawOutput: true,
    // A shell user redirects a binary file to get the file: its bytes, not base64 (unless --encoding base64 asked for
    // it).
    bytes: (out, input) =>
      out.encoding === 'base64' && input.encoding !== 'base64' ? Buffer.from(out.content, 'base64') : undefined,
  },
  async run(input, context) {
    const { session } = context;
    const limits = loadLimits(context.env);
    const folder = (relative: string) =>
      new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument path: ${quote(relative)} is a folder; list it with ls, or read a file inside it.`,
      );
    if (input.version !== 'workspace') {
      if (!lockedByOther(session)) recoverInterruptedSync(session);
      return withVersion(session, input.version as VersionName, limits, async (version) => {
        const file = await versionFile(session, version, input.path);
        if (file === 'dir') throw folder(input.path);
        return pageOf(file, input, context);
      });
    }
    const workspace = workspaceOf(session);
    const seen = withBeneath(session.contents, (beneath) => workspace.stat(beneath, input.path));
    if (seen.archived?.type === 'dir') throw folder(seen.relative);
    // An entry only in the archive is read from a file its bytes are put in (Workspace.fileFor).
    const fromZip = seen.archived ? await archivedFile(workspace, seen, limits) : undefined;
    return withBeneath(session.contents, (beneath) => {
      // A file on disk is reached again: what stat found was reached through folders it has closed.
      const file = fromZip
        ? { relative: seen.relative, path: fromZip, stats: fs.statSync(fromZip) }
        : resolveExisting(beneath, input.path);
      if (file.stats.isDirectory()) throw folder(file.relative);
      return pageOf(file, input, context);
    });
  },
  render: (out) => out.content,
  note(out) {
    if (out.next_start_line !== undefined)
      return (
        `zipfs: lines ${out.start_line}-${out.end_line} of ${out.total_lines}; continue with --start-line ` +
        `${out.next_start_line}`
      );
    return out.next_offset !== undefined
      ? `zipfs: ${out.remaining_bytes} more bytes; continue with --offset ${out.next_offset}`
      : undefined;
  },
});

/** The read's page of `file` (the workspace's, or a version's in the read cache): by lines or by bytes. */
function pageOf(file: { path: string; relative: string }, input: ReadInput, context: CommandContext) {
  const byLines = input.start_line !== undefined || input.end_line !== undefined;
  if (byLines && (input.offset !== undefined || input.limit !== undefined)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid input for read: give lines (start_line, end_line) or bytes (offset, limit), not both.',
    );
  }
  if (input.start_line === 0 || input.end_line === 0)
    throw new ZipfsError(
      'INVALID_INPUT',
      'Invalid input for read: lines count from 1 (or from -1, the last line); 0 is no line.',
    );
  // Line reads are bounded by whole lines, up to the largest page; byte reads by limit.
  const limit = byLines
    ? MAX_PAGE_BYTES
    : Math.min(input.limit ?? loadLimits(context.env).readDefaultBytes, MAX_PAGE_BYTES);
  const lines = byLines ? { start: input.start_line, end: input.end_line } : undefined;
  const page = readPage({
    absolute: file.path,
    relative: file.relative,
    offset: input.offset ?? 0,
    limit,
    lines,
    base64: input.encoding === 'base64',
    encoding: input.encoding === 'base64' ? undefined : (input.encoding as TextEncoding),
    maxAnswerBytes: context.maxAnswerBytes === undefined ? undefined : context.maxAnswerBytes - FIELDS_CHARS,
  });
  // A read by lines gives whole lines; one line longer than an answer holds (minified JSON) is read by bytes
  // instead.
  const budget = context.maxAnswerBytes;
  if (page.lines && page.lines.end === page.lines.start && budget !== undefined && textChars(page.content) > budget) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Line ${page.lines.start} of ${quote(file.relative)} is ${page.bytesRead} bytes, more than one answer ` +
        `holds; read it by bytes from ${param('offset', page.offset)} (each page gives the next_offset).`,
    );
  }
  const remaining = page.size - page.offset - page.bytesRead;
  const result = {
    content: page.content,
    size_bytes: page.size,
    encoding: page.encoding,
    offset: page.offset,
    bytes_read: page.bytesRead,
    remaining_bytes: remaining,
    sha256: page.sha256,
  };
  // The argument that continues, as every paged tool gives it: start_line for a read by lines, offset for one by
  // bytes.
  if (page.lines)
    return {
      ...result,
      total_lines: page.lines.total,
      start_line: page.lines.start,
      end_line: page.lines.end,
      ...(page.lines.end < page.lines.total ? { next_start_line: page.lines.end + 1 } : {}),
    };
  return remaining > 0 ? { ...result, next_offset: page.offset + page.bytesRead } : result;
}
