/**
 * What differs between two versions of a text file whose lines read the same:
 * a byte-order mark added or removed, or line endings turned from CRLF to LF
 * (or back). A line diff of such files is empty, or shows each line replaced
 * by itself; the diff names the difference instead, so a modified file never
 * shows nothing.
 */
import { bomEncoding, bomLength, decodeText, encodingLabel } from './text-encoding.ts';
import { looksBinary } from './text-or-binary.ts';

/**
 * A file's text for a line diff, without its byte-order mark (it is not a
 * character of the first line), in the encoding the BOM names, else UTF-8;
 * undefined for what a line diff cannot show (binary, not valid text).
 */
export function diffText(bytes: Uint8Array): string | undefined {
  const bom = bomEncoding(bytes);
  if (!bom && looksBinary(bytes)) return undefined;
  return decodeText(bytes.subarray(bom ? bomLength(bom) : 0), bom ?? 'utf-8');
}

function lineEndings(text: string): string {
  const crlf = text.split('\r\n').length - 1;
  const lf = text.split('\n').length - 1 - crlf;
  return crlf === 0 ? 'LF' : lf === 0 ? 'CRLF' : 'mixed CRLF and LF';
}

/**
 * The difference between `before` and `after` (bytes, and their diffText) in
 * words, when their lines are the same once line endings are set aside;
 * undefined when a line diff shows what changed.
 */
export function invisibleDifference(
  before: Uint8Array,
  after: Uint8Array,
  beforeText: string,
  afterText: string,
): string | undefined {
  if (beforeText.replaceAll('\r\n', '\n') !== afterText.replaceAll('\r\n', '\n')) return undefined;
  const parts: string[] = [];
  const [bomBefore, bomAfter] = [bomEncoding(before), bomEncoding(after)];
  if (bomBefore !== bomAfter) {
    const mark = (bom: typeof bomBefore) => (bom ? `a ${encodingLabel(bom)} byte-order mark` : 'no byte-order mark');
    parts.push(`the byte-order mark (${mark(bomBefore)} before, ${mark(bomAfter)} after)`);
  }
  if (beforeText !== afterText)
    parts.push(`line endings (${lineEndings(beforeText)} before, ${lineEndings(afterText)} after)`);
  if (parts.length === 0)
    parts.push(
      Buffer.compare(before, after) === 0
        ? 'what is not content (the bytes are the same)'
        : 'bytes (the text reads the same)',
    );
  return parts.join(' and ');
}
