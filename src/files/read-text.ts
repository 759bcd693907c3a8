/**
 * A file's text for edit: its characters, the encoding they are written back
 * in, and its SHA-256; or why it cannot be edited as text.
 */
import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { notReadable, openRegularFile } from '../base/regular-file.ts';
import { notTextReason, scanFile } from './text-or-binary.ts';
import { textEncodingOf, WHOLE_TEXT_MAX_BYTES } from './file-encoding.ts';
import { decodeText, encodeText, encodingLabel, multiByteLegacy, type TextEncoding } from './text-encoding.ts';

/**
 * The file's characters (a BOM kept as U+FEFF), the encoding they are written back in, and
 * the file's SHA-256; or why it cannot be edited as text.
 */
export function readText(
  absolute: string,
  relative: string,
  asked: TextEncoding | undefined,
): { text: string; encoding: TextEncoding; sha256: string } {
  const { fd, stats } = openRegularFile(absolute, relative, { refuse: (what) => notReadable(relative, what) });
  try {
    const { kind, sha256 } = scanFile(fd, stats.size);
    const encoding =
      stats.size > WHOLE_TEXT_MAX_BYTES ? undefined : textEncodingOf(fd, stats.size, kind, asked, relative);
    const bytes = encoding && fs.readFileSync(fd);
    const text = encoding && decodeText(bytes!, encoding);
    if (text === undefined || !encoding) {
      const why =
        stats.size > WHOLE_TEXT_MAX_BYTES
          ? 'over 64 MiB'
          : kind === 'binary'
            ? 'binary'
            : `${notTextReason(kind === 'utf-8' ? 'not-utf-8' : kind)} (name its encoding with ` +
              `${param('encoding', 'iso-8859-1')} or another, if it is text)`;
      throw new ZipfsError(
        'INVALID_INPUT',
        `${quote(relative)} is ${why}; edit works on text files. Replace it whole with write.`,
      );
    }
    if (multiByteLegacy(encoding)) assertRoundTrip(bytes!, text, encoding, relative);
    return { text, encoding, sha256 };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A multi-byte code page may decode two byte sequences to one character, and GBK's decoder takes GB18030's four-byte
 * sequences its encoder does not write (code-pages.ts): edit writes the whole file back, so a file that would not
 * come back byte for byte is refused, never silently changed.
 */
function assertRoundTrip(bytes: Buffer, text: string, encoding: TextEncoding, relative: string): void {
  const again = encodeText(text, encoding);
  if (Buffer.isBuffer(again) && again.equals(bytes)) return;
  let at = 0;
  if (Buffer.isBuffer(again)) while (at < bytes.length && bytes[at] === again[at]) at++;
  const where = Buffer.isBuffer(again) ? `near byte ${at}` : `${quote(again.char)}`;
  throw new ZipfsError(
    'INVALID_INPUT',
    `${quote(relative)} holds a byte sequence (${where}) that ${encodingLabel(encoding)} would write back another ` +
      `way, so edit cannot keep the file's other bytes as they are; nothing was written. Replace it whole with ` +
      `write, or edit it as ${param('encoding', 'iso-8859-1')} (every byte kept, multi-byte characters as pairs).`,
  );
}
