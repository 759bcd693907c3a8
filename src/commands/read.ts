import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { ZipfsError, quote } from '../errors.ts';
import { loadLimits } from '../limits.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { resolveExisting } from '../files/safe-path.ts';
import { readPage } from '../files/read-page.ts';
import { count, sessionParam, text } from './schemas.ts';

/** The largest page, whatever `limit` asks: a larger one is clamped, and remaining_bytes says what is left. */
const MAX_PAGE_BYTES = 64 * 1024 * 1024;

export const read = defineCommand({
  name: 'read',
  title: 'Read a file',
  description:
    'Read a file, a page at a time: text, or base64 if binary.',
  input: v.strictObject({
    session: sessionParam,
    path: v.pipe(v.string(), v.minLength(1), v.description('From the workspace root')),
    encoding: v.optional(v.pipe(v.picklist(['utf-8', 'base64']), v.description('base64 forces binary')), 'utf-8'),
    offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Start byte')), 0),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Default 262144'))),
  }),
  output: v.object({
    content: text('Page'),
    size_bytes: count('File size'),
    encoding: v.pipe(v.picklist(['utf-8', 'base64']), v.description('Of content')),
    offset: count('Page start'),
    bytes_read: count('Page bytes'),
    remaining_bytes: count('After the page'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['path'], short: { session: 's' }, example: 'zipfs read logo.png --encoding base64 --offset 0 --limit 1024', rawOutput: true },
  run(input, context) {
    const session = resolveSession(context.home, input.session, context.hints);
    const file = resolveExisting(session.contents, input.path);
    if (file.stats.isDirectory()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: ${quote(file.relative)} is a folder; list it with ls, or read a file inside it.`);
    const limit = Math.min(input.limit ?? loadLimits(context.env).readDefaultBytes, MAX_PAGE_BYTES);
    const page = readPage({ absolute: file.absolute, relative: file.relative, offset: input.offset, limit, base64: input.encoding === 'base64', maxAnswerBytes: context.maxAnswerBytes });
    return { content: page.content, size_bytes: page.size, encoding: page.encoding, offset: page.offset, bytes_read: page.bytesRead, remaining_bytes: page.size - page.offset - page.bytesRead };
  },
  render: (out) => out.content,
  note: (out) => (out.remaining_bytes > 0 ? `zipfs: ${out.remaining_bytes} more bytes; continue with --offset ${out.offset + out.bytes_read}` : undefined),
});
