/**
 * Where lines and characters start in encoded bytes, so read's pages and line
 * ranges cut text only between characters, in every encoding it takes:
 * UTF-8 never inside a multi-byte sequence, UTF-16 never inside a code unit
 * or a surrogate pair, single-byte encodings anywhere.
 */
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
