import fs from 'node:fs';
import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { ZipfsError } from '../errors.ts';
import { loadLimits } from '../limits.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { resolveExisting } from '../files/safe-path.ts';
import { specialKind } from '../files/regular-file.ts';
import { tryDecodeUtf8 } from '../zip/names.ts';
import { count, sessionParam, text } from './schemas.ts';

const MAX_LIMIT = 64 * 1024 * 1024;

/** Bytes at the end of `bytes` that start a UTF-8 character the slice cuts off. */
function cutCharacterBytes(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? back : 0;
  }
  return 0;
}

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
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_LIMIT), v.description('Default 262144'))),
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
    if (file.stats.isDirectory()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: "${file.relative}" is a folder; list it with ls, or read a file inside it.`);
    // A FIFO would block the read forever and a device never ends: only regular files are read.
    if (!file.stats.isFile()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: "${file.relative}" is ${specialKind(file.stats.mode) ?? 'not a regular file'}; zipfs reads regular files only.`);
    const size = file.stats.size;
    if (input.offset > size) throw new ZipfsError('INVALID_INPUT', `Invalid argument offset: ${input.offset} is past the end of "${file.relative}" (${size} bytes).`);
    const limit = input.limit ?? Math.min(loadLimits(context.env).readDefaultBytes, MAX_LIMIT);
    let bytes = readRange(file.absolute, input.offset, Math.min(limit, size - input.offset));

    let encoding = input.encoding;
    if (encoding === 'utf-8') {
      // A page boundary inside a character would make valid text look binary: end the page before it.
      const more = input.offset + bytes.length < size;
      const cut = more ? cutCharacterBytes(bytes) : 0;
      if (cut > 0 && cut < bytes.length) bytes = bytes.subarray(0, bytes.length - cut);
    }
    let content = encoding === 'utf-8' ? tryDecodeUtf8(bytes) : undefined;
    if (content === undefined) {
      encoding = 'base64';
      content = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
    }
    return { content, size_bytes: size, encoding, offset: input.offset, bytes_read: bytes.length, remaining_bytes: size - input.offset - bytes.length };
  },
  render: (out) => out.content,
  note: (out) => (out.remaining_bytes > 0 ? `zipfs: ${out.remaining_bytes} more bytes; continue with --offset ${out.offset + out.bytes_read}` : undefined),
});

function readRange(file: string, offset: number, length: number): Uint8Array {
  const buffer = Buffer.alloc(length);
  const fd = fs.openSync(file, 'r');
  try {
    let done = 0;
    while (done < length) {
      const n = fs.readSync(fd, buffer, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}
