/**
 * One page of a workspace file, as read returns it. The encoding is decided
 * once per file (text-or-binary.ts), so every page of a file comes back alike;
 * text pages start and end on character boundaries (the offset returned is
 * where the page really starts); and a page is cut to fit the surface's
 * answer budget, so a large read never makes a message a client drops.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../errors.ts';
import { readFully } from '../fd-io.ts';
import { tryDecodeUtf8 } from '../zip/names.ts';
import { notReadable, openRegularFile } from './regular-file.ts';
import { notTextReason, scanFile, type FileText } from './text-or-binary.ts';

export interface PageRequest {
  /** The path for system calls, reached without links (beneath.ts), and the path the caller gave. */
  absolute: string;
  relative: string;
  offset: number;
  limit: number;
  base64: boolean;
  /** Read whole lines instead of bytes: 1-based and inclusive, negative counting from the end. */
  lines?: { start?: number; end?: number };
  /** The most the page's content may take once serialised twice (MCP's text block and structuredContent). */
  maxAnswerBytes?: number;
}

export interface Page {
  content: string;
  encoding: 'utf-8' | 'base64';
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
  const { fd, stats } = openRegularFile(request.absolute, request.relative, { refuse: (what) => notReadable(request.relative, what) });
  try {
    const size = stats.size;
    if (request.offset > size) throw new ZipfsError('INVALID_INPUT', `Invalid argument offset: ${request.offset} is past the end of ${quote(request.relative)} (${size} bytes).`);
    const { kind, sha256 } = scanOnce(stats, () => scanFile(fd, size));
    if (request.lines) return { ...linesAt(fd, size, kind, request), sha256 };
    const text = !request.base64 && (kind === 'utf-8' || kind === 'large-text');
    let want = Math.min(request.limit, size - request.offset);
    for (;;) {
      const page = pageAt(fd, size, request.offset, want, text);
      const budget = request.maxAnswerBytes;
      const cost = budget === undefined ? 0 : answerCost(page.content);
      if (budget === undefined || cost <= budget || page.bytesRead <= 1) return { ...page, sha256 };
      want = Math.max(1, Math.floor(page.bytesRead * (budget / cost) * 0.95));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Whole lines `start..end` of a UTF-8 text file, cut (by whole lines) to the answer budget and `limit`. */
function linesAt(fd: number, size: number, kind: FileText, request: PageRequest): Omit<Page, 'sha256'> {
  if (kind !== 'utf-8') {
    throw new ZipfsError('INVALID_INPUT', `${quote(request.relative)} is ${notTextReason(kind)}; read it by bytes (offset and limit) instead of lines.`);
  }
  const bytes = Buffer.allocUnsafe(size);
  readFully(fd, bytes, 0);
  const starts = [0];
  for (let at = bytes.indexOf(0x0a); at >= 0 && at + 1 < size; at = bytes.indexOf(0x0a, at + 1)) starts.push(at + 1);
  const total = size === 0 ? 0 : starts.length;
  const resolve = (line: number | undefined, fallback: number) => (line === undefined ? fallback : line < 0 ? total + line + 1 : line);
  const start = Math.max(1, resolve(request.lines!.start, 1));
  let end = Math.min(total, resolve(request.lines!.end, total));
  const byteAt = (line: number) => (line > total ? size : starts[line - 1]!); // where 1-based `line` starts
  for (;;) {
    const from = byteAt(start);
    const to = end >= start ? byteAt(end + 1) : from;
    const content = bytes.subarray(from, to).toString('utf8');
    const over = to - from > request.limit || (request.maxAnswerBytes !== undefined && answerCost(content) > request.maxAnswerBytes);
    if (!over || end <= start) return { content, encoding: 'utf-8', offset: from, bytesRead: to - from, size, lines: { total, start, end: Math.max(end, start - 1) } };
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

function pageAt(fd: number, size: number, offset: number, want: number, text: boolean): Omit<Page, 'sha256'> {
  // Up to 3 bytes past the page, to see whether its end cuts a character.
  const raw = Buffer.allocUnsafe(Math.min(size - offset, want + 3));
  const bytes = raw.subarray(0, readFully(fd, raw, offset));
  let from = 0;
  let to = Math.min(want, bytes.length);
  if (text) {
    while (from < 3 && from < bytes.length && (bytes[from]! & 0xc0) === 0x80) from++; // start on a character
    while (to > from && to < bytes.length && (bytes[to]! & 0xc0) === 0x80) to--; // end before a cut character
    if (to <= from && from < bytes.length) for (to = from + 1; to < bytes.length && (bytes[to]! & 0xc0) === 0x80; ) to++; // never an empty page: one whole character
  }
  const slice = bytes.subarray(from, to);
  const decoded = text ? tryDecodeUtf8(slice) : undefined;
  // A text file too large to check whole may still hold a page that is not UTF-8: that page is base64, never mangled.
  const content = decoded ?? Buffer.from(slice).toString('base64');
  return { content, encoding: decoded === undefined ? 'base64' : 'utf-8', offset: offset + from, bytesRead: slice.length, size };
}
