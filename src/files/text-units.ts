/**
 * Where lines and characters start in encoded bytes, so read's pages and line
 * ranges cut text only between characters, in every encoding it takes:
 * UTF-8 never inside a multi-byte sequence, UTF-16 never inside a code unit
 * or a surrogate pair, single-byte encodings anywhere, multi-byte code pages
 * (Shift_JIS, GBK, Big5, EUC-KR) counted from a byte known to start a
 * character, since their trail bytes may look like lead bytes or ASCII.
 */
import fs from 'node:fs';
import type { TextEncoding } from './text-encoding.ts';

/** Byte offsets where each line starts (the first at 0); a newline at the very end starts no line. */
export function lineStarts(bytes: Uint8Array, encoding: TextEncoding): number[] {
  const starts = [0];
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const [low, high] = encoding === 'utf-16le' ? [0x0a, 0] : [0, 0x0a];
    for (let at = 0; at + 3 < bytes.length; at += 2)
      if (bytes[at] === low && bytes[at + 1] === high) starts.push(at + 2);
    return starts;
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let at = buffer.indexOf(0x0a); at >= 0 && at + 1 < buffer.length; at = buffer.indexOf(0x0a, at + 1))
    starts.push(at + 1);
  return starts;
}

/**
 * The part of `bytes` (read from file offset `offset`, a few bytes past the
 * `want` asked for) that holds whole characters: [from, to). Never empty
 * while a whole character is there to return.
 */
export function wholeCharacters(
  bytes: Uint8Array,
  offset: number,
  want: number,
  encoding: TextEncoding,
): { from: number; to: number } {
  let from = 0;
  let to = Math.min(want, bytes.length);
  if (encoding === 'utf-8') {
    const continuation = (at: number) => (bytes[at]! & 0xc0) === 0x80;
    while (from < 3 && from < bytes.length && continuation(from)) from++; // start on a character
    while (to > from && to < bytes.length && continuation(to)) to--; // end before a cut character
    // one whole character
    if (to <= from && from < bytes.length) for (to = from + 1; to < bytes.length && continuation(to); ) to++;
    return { from, to };
  }
  if (encoding !== 'utf-16le' && encoding !== 'utf-16be') return { from, to };
  const unit = (at: number) =>
    encoding === 'utf-16le' ? bytes[at]! | (bytes[at + 1]! << 8) : (bytes[at]! << 8) | bytes[at + 1]!;
  const isLow = (at: number) => at + 1 < bytes.length && unit(at) >= 0xdc00 && unit(at) <= 0xdfff;
  const isHigh = (at: number) => at + 1 < bytes.length && unit(at) >= 0xd800 && unit(at) <= 0xdbff;
  if ((offset + from) % 2 !== 0) from++; // code units start on even bytes
  if (isLow(from)) from += 2; // the second half of a pair
  to = Math.max(from, from + Math.floor((to - from) / 2) * 2);
  if (to - 2 >= from && isHigh(to - 2)) to -= 2; // the first half of a pair
  if (to <= from && from + 1 < bytes.length) to = Math.min(bytes.length, from + (isHigh(from) ? 4 : 2));
  return { from, to };
}

type MultiBytePage = 'shift_jis' | 'gbk' | 'big5' | 'euc-kr';

/** Bytes of the character at `bytes[at]` of a valid text in `page`. */
function legacyCharLength(bytes: Uint8Array, at: number, page: MultiBytePage): number {
  const byte = bytes[at]!;
  if (page === 'shift_jis') return (byte >= 0x81 && byte <= 0x9f) || (byte >= 0xe0 && byte <= 0xfc) ? 2 : 1;
  if (byte < 0x81 || byte === 0xff) return 1;
  const next = bytes[at + 1] ?? 0;
  return page === 'gbk' && next >= 0x30 && next <= 0x39 ? 4 : 2; // a four-byte GB18030 sequence
}

/**
 * Where a character starts at or before file offset `offset` of a valid text in a multi-byte code page: just after
 * the last byte below 0x30 before it (no such byte is ever part of a longer character), else the file's start.
 */
export function legacyAnchor(fd: number, offset: number): number {
  const piece = Buffer.allocUnsafe(4096);
  for (let end = offset; end > 0; ) {
    const start = Math.max(0, end - piece.length);
    const n = fs.readSync(fd, piece, 0, end - start, start);
    for (let i = n - 1; i >= 0; i--) if (piece[i]! < 0x30) return start + i + 1;
    end = start;
  }
  return 0;
}

/**
 * [from, to) of `bytes`, read from a character's start: whole characters, the first starting at or after `skip`, the
 * last ending by `skip + want`; one whole character at least while there is one.
 */
export function legacyCharacters(
  bytes: Uint8Array,
  skip: number,
  want: number,
  page: MultiBytePage,
): { from: number; to: number } {
  let from = 0;
  while (from < skip && from < bytes.length) from += legacyCharLength(bytes, from, page);
  let to = from;
  for (let next; to < bytes.length && (next = to + legacyCharLength(bytes, to, page)) <= skip + want; ) to = next;
  if (to === from && from < bytes.length) to = Math.min(bytes.length, from + legacyCharLength(bytes, from, page));
  return { from: Math.min(from, bytes.length), to };
}
