/**
 * What grep searches in a file: its text in its encoding (a byte-order mark's,
 * else the one the caller named), or, for a binary file searched on request,
 * its bytes as Latin-1, one character per byte, so a match's index is its byte
 * offset and ASCII patterns (class and method names in a jar's .class files)
 * match as they are.
 */
import { looksBinary } from '../files/text-or-binary.ts';
import { bomEncoding, bomLength, decodeText, type TextEncoding } from '../files/text-encoding.ts';

/**
 * The file's text without its BOM (so `^` anchors the first line too), or
 * undefined when it is binary. UTF-16 is full of NUL bytes, so the binary
 * rule is not applied to it. Bytes the encoding rejects become U+FFFD, as
 * grep goes on past them: one odd byte must not hide the lines around it.
 */
export function grepText(bytes: Buffer, asked: TextEncoding): string | undefined {
  const bom = bomEncoding(bytes);
  const encoding = bom ?? asked;
  if (!bom && !encoding.startsWith('utf-16') && looksBinary(bytes)) return undefined;
  const body = bytes.subarray(bom ? bomLength(bom) : 0);
  return decodeText(body, encoding) ?? new TextDecoder(encoding, { ignoreBOM: true }).decode(body);
}

const RUN_MAX = 200;

/** The first match in a binary file's bytes: its byte offset, and the printable run of bytes around it (as `strings` shows). */
export function binaryMatch(bytes: Buffer, regex: RegExp): { offset: number; text: string } | undefined {
  const latin1 = bytes.toString('latin1');
  const hit = regex.exec(latin1);
  if (!hit) return undefined;
  const printable = (at: number) => {
    const code = latin1.charCodeAt(at);
    return (code >= 0x20 && code < 0x7f) || code === 0x09;
  };
  let from = hit.index;
  while (from > 0 && hit.index - from < RUN_MAX && printable(from - 1)) from--;
  let to = hit.index + hit[0].length;
  while (to < latin1.length && to - hit.index < RUN_MAX && printable(to)) to++;
  // Other bytes inside the match itself are shown as \xNN, so the line stays one line of plain text.
  const text = latin1.slice(from, to).replace(/[^\x20-\x7e\t]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return { offset: hit.index, text };
}
