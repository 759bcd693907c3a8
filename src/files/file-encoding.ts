/**
 * Which text encoding read and edit take a file in: the one its byte-order
 * mark names (the only certain sign), else the one the caller names, else
 * UTF-8 when the file is UTF-8 text (text-or-binary.ts). 'utf-8', the
 * default, gives way to a BOM; another encoding that contradicts the file's
 * BOM is refused, since reading UTF-16 as Latin-1 can only mangle it. A
 * single-byte encoding takes any file; UTF-16 and the multi-byte code pages
 * (Shift_JIS, GBK, Big5, EUC-KR) only one that decodes whole in them.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import type { FileText } from './text-or-binary.ts';
import { bomEncoding, encodingLabel, multiByteLegacy, type TextEncoding } from './text-encoding.ts';
import { strictCodePageDecoder } from '../zip/index.ts';

/** Files over this are not checked whole: UTF-16 needs the check, and a line read or an edit holds the whole file. */
export const WHOLE_TEXT_MAX_BYTES = 64 << 20;
const PIECE_BYTES = 1 << 20;

/**
 * The encoding to take the open file `fd` in, or undefined when it is not text
 * in any encoding it may be read in (read answers base64, edit refuses).
 */
export function textEncodingOf(
  fd: number,
  size: number,
  kind: FileText,
  asked: TextEncoding | undefined,
  relative: string,
): TextEncoding | undefined {
  const head = Buffer.alloc(3);
  const bom = bomEncoding(head.subarray(0, fs.readSync(fd, head, 0, 3, 0)));
  if (bom && asked !== undefined && asked !== 'utf-8' && asked !== bom) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument encoding: ${quote(relative)} starts with a ${encodingLabel(bom)} byte-order mark, so it ` +
        `is ${encodingLabel(bom)}, not ${encodingLabel(asked)}; pass ${param('encoding', bom)}, or leave encoding out.`,
    );
  }
  const encoding = bom ?? asked ?? 'utf-8';
  if (encoding === 'utf-8') return kind === 'utf-8' || kind === 'large-text' ? 'utf-8' : undefined;
  // every byte is a character of a single-byte encoding
  if (!encoding.startsWith('utf-16') && !multiByteLegacy(encoding)) return encoding;
  if (size <= WHOLE_TEXT_MAX_BYTES && validWhole(fd, size, encoding)) return encoding;
  if (bom) return undefined; // a BOM, then bytes that are not UTF-16: not text after all
  const why = multiByteLegacy(encoding) ? 'a byte sequence it does not have' : 'an odd length, or a lone surrogate';
  throw new ZipfsError(
    'INVALID_INPUT',
    `${quote(relative)} is not ${encodingLabel(encoding)} text ` +
      `(${size > WHOLE_TEXT_MAX_BYTES ? 'over 64 MiB, too large to check' : why}); ` +
      `read it in another encoding, or as base64.`,
  );
}

/**
 * Whether the whole file decodes in `encoding` (UTF-16 in either byte order, or a multi-byte code page), read a
 * piece at a time.
 */
function validWhole(fd: number, size: number, encoding: TextEncoding): boolean {
  if (encoding.startsWith('utf-16') && size % 2 !== 0) return false;
  const decoder = multiByteLegacy(encoding)
    ? strictCodePageDecoder(encoding)
    : new TextDecoder(encoding as 'utf-16le' | 'utf-16be', { fatal: true, ignoreBOM: true });
  const piece = Buffer.allocUnsafe(Math.max(2, Math.min(size, PIECE_BYTES)));
  try {
    for (let at = 0, n; at < size && (n = fs.readSync(fd, piece, 0, piece.length, at)) > 0; at += n)
      decoder.decode(piece.subarray(0, n), { stream: true });
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}
