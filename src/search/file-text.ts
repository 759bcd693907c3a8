/**
 * What grep searches in a file: its text in its encoding (a byte-order mark's,
 * else the one the caller named), or, for a binary file searched on request,
 * its bytes as Latin-1 (binary-scan.ts). Both are decided from the head of the
 * file alone, so a file is read once, as a stream, whatever its size.
 */
import { BINARY_PROBE_BYTES, looksBinary } from '../files/text-or-binary.ts';
import { bomEncoding, bomLength, legacyPage, type TextEncoding } from '../files/text-encoding.ts';
import { codePageStream } from '../zip/index.ts';

/** How many bytes of a file textPlan needs (fewer only when the file is shorter). */
export const HEAD_BYTES = BINARY_PROBE_BYTES;

export interface TextPlan {
  encoding: TextEncoding;
  /** Bytes of byte-order mark to skip, so `^` anchors the first line too. */
  skip: number;
}

/**
 * How to read a file as text given its first HEAD_BYTES bytes (or all of a
 * shorter file); undefined when it is binary. UTF-16 is full of NUL bytes, so
 * the binary rule (a NUL in the first 8,000 bytes, text-or-binary.ts) is not
 * applied to it.
 */
export function textPlan(head: Uint8Array, asked: TextEncoding): TextPlan | undefined {
  const bom = bomEncoding(head);
  const encoding = bom ?? asked;
  if (!bom && !encoding.startsWith('utf-16') && looksBinary(head)) return undefined;
  return { encoding, skip: bom ? bomLength(bom) : 0 };
}

/**
 * A decoder fed a file's bytes in pieces (then `undefined` once, at the end):
 * a character split between two pieces comes out whole, and bytes the encoding
 * rejects become U+FFFD, as grep goes on past them: one odd byte must not hide
 * the lines around it. The result is the same as decoding the file in one
 * piece (text-encoding.ts decodeText, which only refuses instead of replacing).
 * A BOM inside the text is kept as U+FEFF, like decodeText.
 */
export function streamDecoder(encoding: TextEncoding): (bytes: Uint8Array | undefined) => string {
  // ISO-8859-1 by hand: WHATWG's label means windows-1252. Node's latin1 is exact (byte n is U+00n) and has no state.
  if (encoding === 'iso-8859-1')
    return (bytes) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1') : '');
  const page = legacyPage(encoding);
  if (page) return codePageStream(page);
  const decoder = new TextDecoder(encoding as 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252', { ignoreBOM: true });
  return (bytes) => (bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode());
}
