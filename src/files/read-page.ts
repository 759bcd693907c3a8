/**
 * One page of a workspace file, as read returns it. The encoding is decided
 * once per file (text-or-binary.ts), so every page of a file comes back alike;
 * text pages start and end on character boundaries (the offset returned is
 * where the page really starts); and a page is cut to fit the surface's
 * answer budget, so a large read never makes a message a client drops.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import { readFully } from '../base/fd-io.ts';
import { notReadable, openRegularFile } from '../base/regular-file.ts';
import { notTextReason, scanFile } from './text-or-binary.ts';
import { textEncodingOf, WHOLE_TEXT_MAX_BYTES } from './file-encoding.ts';
import { decodeText, multiByteLegacy, type TextEncoding } from './text-encoding.ts';
import { legacyAnchor, legacyCharacters, lineStarts, wholeCharacters } from './text-units.ts';

export interface PageRequest {
  /** The path for system calls, reached without links (beneath.ts), and the path the caller gave. */
  absolute: string;
  relative: string;
  offset: number;
  limit: number;
  base64: boolean;
  /** The text encoding the caller named; a byte-order mark decides otherwise (file-encoding.ts). */
  encoding?: TextEncoding;
  /** Read whole lines instead of bytes: 1-based and inclusive, negative counting from the end. */
  lines?: { start?: number; end?: number };
  /** The most the page's content may take once serialised twice (MCP's text block and structuredContent). */
  maxAnswerBytes?: number;
}

export interface Page {
  /** Text pages hold the file's characters exactly: a byte-order mark is U+FEFF at the start. */
  content: string;
  encoding: TextEncoding | 'base64';
  offset: number;
  bytesRead: number;
  size: number;
  /** Of the whole file: edit's expected_sha256. */
  sha256: string;
  /** For line reads: the file's line count and the lines returned. */
  lines?: { total: number; start: number; end: number };
}

export function readPage(request: PageRequest): Page {
  // Non-blocking: a FIFO that appeared since the path was checked must not hang the read.
  const { fd, stats } = openRegularFile(request.absolute, request.relative, {
    refuse: (what) => notReadable(request.relative, what),
  });
  try {
    const size = stats.size;
    if (request.offset > size)
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument offset: ${request.offset} is past the end of ${quote(request.relative)} (${size} bytes).`,
      );
    const { kind, sha256 } = scanOnce(stats, () => scanFile(fd, size));
    const encoding = request.base64 ? undefined : textEncodingOf(fd, size, kind, request.encoding, request.relative);
    if (request.lines) {
      if (encoding === undefined || size > WHOLE_TEXT_MAX_BYTES) {
        const why =
          encoding !== undefined || kind === 'utf-8'
            ? 'over 64 MiB'
            : kind === 'not-utf-8'
              ? 'not UTF-8 text (if it is in another encoding, name it with encoding)'
              : notTextReason(kind);
        throw new ZipfsError(
          'INVALID_INPUT',
          `${quote(request.relative)} is ${why}; read it by bytes (offset and limit) instead of lines.`,
        );
      }
      return { ...linesAt(fd, size, encoding, request), sha256 };
    }
    let want = Math.min(request.limit, size - request.offset);
    for (;;) {
      const page = pageAt(fd, size, request.offset, want, encoding);
      const budget = request.maxAnswerBytes;
      const cost = budget === undefined ? 0 : answerCost(page.content);
      if (budget === undefined || cost <= budget || page.bytesRead <= 1) return { ...page, sha256 };
      want = Math.max(1, Math.floor(page.bytesRead * (budget / cost) * 0.95));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whole lines `start..end` of a text file, cut (by whole lines) to the answer budget and `limit`.
 * A range with no line in it is INVALID_INPUT, as an offset past the end is: an empty answer
 * would read as an empty file (only an empty file read from line 1 answers empty).
 */
function linesAt(fd: number, size: number, encoding: TextEncoding, request: PageRequest): Omit<Page, 'sha256'> {
  const bytes = Buffer.allocUnsafe(size);
  readFully(fd, bytes, 0);
  const starts = lineStarts(bytes, encoding);
  const total = size === 0 ? 0 : starts.length;
  const resolve = (line: number | undefined, fallback: number) =>
    line === undefined ? fallback : line < 0 ? total + line + 1 : line;
  const start = Math.max(1, resolve(request.lines!.start, 1));
  let end = Math.min(total, resolve(request.lines!.end, total));
  emptyRangeCheck(request, start, end, total);
  const byteAt = (line: number) => (line > total ? size : starts[line - 1]!); // where 1-based `line` starts
  for (;;) {
    const from = byteAt(start);
    const to = end >= start ? byteAt(end + 1) : from;
    const content = decodeText(bytes.subarray(from, to), encoding)!; // whole lines of a file that decodes whole
    const over =
      to - from > request.limit ||
      (request.maxAnswerBytes !== undefined && answerCost(content) > request.maxAnswerBytes);
    if (!over || end <= start)
      return {
        content,
        encoding,
        offset: from,
        bytesRead: to - from,
        size,
        lines: { total, start, end: Math.max(end, start - 1) },
      };
    end = start + Math.floor((end - start) / 2); // halve the range until the page fits
  }
}

/**
 * A file's kind and hash, kept while its stat stays the same: paging through a
 * large file over MCP would otherwise hash all of it again for every page. Any
 * change moves ctime (which nothing can set back); only a rewrite of the same
 * size within one tick of the kernel's clock could go unseen, and edit hashes
 * the file afresh, so at worst that reports a conflict, never a wrong write.
 */
const scans = new Map<string, ReturnType<typeof scanFile>>();
const MAX_SCANS = 256;

function scanOnce(stats: fs.Stats, scan: () => ReturnType<typeof scanFile>): ReturnType<typeof scanFile> {
  const key = `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
  const known = scans.get(key);
  if (known) return known;
  const fresh = scan();
  if (scans.size >= MAX_SCANS) scans.delete(scans.keys().next().value!);
  scans.set(key, fresh);
  return fresh;
}

/** Characters the content takes in an MCP answer: once in structuredContent, once inside the text block's JSON. */
function answerCost(content: string): number {
  const once = JSON.stringify(content);
  return once.length + JSON.stringify(once).length;
}

function pageAt(
  fd: number,
  size: number,
  offset: number,
  want: number,
  encoding: TextEncoding | undefined,
): Omit<Page, 'sha256'> {
  // A multi-byte code page's characters are counted from one known to start where the page does or before.
  const start = encoding && multiByteLegacy(encoding) ? legacyAnchor(fd, offset) : offset;
  // Up to 4 bytes past the page, to see whether its end cuts a character (a UTF-16 pair is 4 bytes).
  const raw = Buffer.allocUnsafe(Math.min(size - start, offset - start + want + 4));
  const bytes = raw.subarray(0, readFully(fd, raw, start));
  const { from, to } = !encoding
    ? { from: 0, to: Math.min(want, bytes.length) }
    : multiByteLegacy(encoding)
      ? legacyCharacters(bytes, offset - start, want, encoding)
      : wholeCharacters(bytes, offset, want, encoding);
  const slice = bytes.subarray(from, to);
  const decoded = encoding ? decodeText(slice, encoding) : undefined;
  // A text file too large to check whole may still hold a page that is not UTF-8: that page is base64, never mangled.
  const content = decoded ?? Buffer.from(slice).toString('base64');
  return {
    content,
    encoding: decoded === undefined ? 'base64' : encoding!,
    offset: start + from,
    bytesRead: slice.length,
    size,
  };
}

/** A line range that holds no line: past the last one, or ending before it starts. */
function emptyRangeCheck(request: PageRequest, start: number, end: number, total: number): void {
  if (start > total && !(total === 0 && start === 1)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument ` +
        `start_line: ${quote(request.relative)} has ${total} line${total === 1 ? '' : 's'}, so line ${start} is ` +
        `past its end.`,
    );
  }
  if (start > end && total > 0) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid input for read: the lines asked for run from ${start} to ${end} of ${total}, which holds no line; ` +
        `end_line must not come before start_line.`,
    );
  }
}
