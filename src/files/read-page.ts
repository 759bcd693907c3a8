/**
 * One page of a workspace file, as read returns it. The encoding is decided
 * once per file (text-or-binary.ts), so every page of a file comes back alike;
 * text pages start and end on character boundaries (the offset returned is
 * where the page really starts); and a page is cut to fit the surface's
 * answer budget, so a large read never makes a message a client drops.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../errors.ts';
import { tryDecodeUtf8 } from '../zip/names.ts';
import { specialKind } from './regular-file.ts';
import { classifyFile } from './text-or-binary.ts';

export interface PageRequest {
  /** Real path (links resolved inside the workspace) and the path the caller gave. */
  absolute: string;
  relative: string;
  offset: number;
  limit: number;
  base64: boolean;
  /** The most the page's content may take once serialised twice (MCP's text block and structuredContent). */
  maxAnswerBytes?: number;
}

export interface Page {
  content: string;
  encoding: 'utf-8' | 'base64';
  offset: number;
  bytesRead: number;
  size: number;
}

const { O_RDONLY, O_NONBLOCK = 0 } = fs.constants;

export function readPage(request: PageRequest): Page {
  // Non-blocking: a FIFO that appeared since the path was checked must not hang the read.
  const fd = fs.openSync(request.absolute, O_RDONLY | O_NONBLOCK);
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new ZipfsError('INVALID_INPUT', `Invalid argument path: ${quote(request.relative)} is ${specialKind(stats.mode) ?? 'not a regular file'}; zipfs reads regular files only.`);
    const size = stats.size;
    if (request.offset > size) throw new ZipfsError('INVALID_INPUT', `Invalid argument offset: ${request.offset} is past the end of ${quote(request.relative)} (${size} bytes).`);
    const kind = request.base64 ? 'binary' : classifyFile(fd, size);
    const text = kind === 'utf-8' || kind === 'large-text';
    let want = Math.min(request.limit, size - request.offset);
    for (;;) {
      const page = pageAt(fd, size, request.offset, want, text);
      const budget = request.maxAnswerBytes;
      const cost = budget === undefined ? 0 : answerCost(page.content);
      if (budget === undefined || cost <= budget || page.bytesRead <= 1) return page;
      want = Math.max(1, Math.floor(page.bytesRead * (budget / cost) * 0.95));
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Characters the content takes in an MCP answer: once in structuredContent, once inside the text block's JSON. */
function answerCost(content: string): number {
  const once = JSON.stringify(content);
  return once.length + JSON.stringify(once).length;
}

function pageAt(fd: number, size: number, offset: number, want: number, text: boolean): Page {
  // Up to 3 bytes past the page, to see whether its end cuts a character.
  const raw = Buffer.allocUnsafe(Math.min(size - offset, want + 3));
  let got = 0;
  for (let n; got < raw.length && (n = fs.readSync(fd, raw, got, raw.length - got, offset + got)) > 0; ) got += n;
  const bytes = raw.subarray(0, got);
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
