/**
 * The text encodings read, grep and edit take, decoded and encoded exactly,
 * so a file read, edited and written back keeps every byte it did not change.
 *
 * Names are the WHATWG/IANA labels agents know: 'utf-8', 'utf-16le',
 * 'utf-16be', 'iso-8859-1' and 'windows-1252'. A byte-order mark is the only
 * certain sign of an encoding, so it is the only one detected; any other
 * encoding is the caller's to name. Decoding keeps a BOM as U+FEFF (the file's
 * characters, exactly), and encoding the same text writes it back.
 *
 * ISO-8859-1 is decoded here by hand: WHATWG's 'latin1' and 'iso-8859-1'
 * labels mean windows-1252, whose 0x80-0x9F are other characters. Encoding is
 * by hand for every encoding but UTF-8, refusing what the encoding cannot hold
 * instead of writing '?' as a lossy encoder would. The legacy code pages
 * (cp437 ... euc-kr, the ones entry names may be in too) are zip/code-pages.ts's.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { decodeCodePage, encodeCodePage, isMultiByte, type CodePage } from '../zip/index.ts';

export const TEXT_ENCODINGS = [
  'utf-8',
  'utf-16le',
  'utf-16be',
  'iso-8859-1',
  'windows-1252',
  'cp437',
  'cp850',
  'cp866',
  'windows-1250',
  'windows-1251',
  'shift_jis',
  'gbk',
  'big5',
  'euc-kr',
] as const;
export type TextEncoding = (typeof TEXT_ENCODINGS)[number];

/** A code page of zip/code-pages.ts other than windows-1252 (which is done here, as before there were others). */
export function legacyPage(encoding: TextEncoding): Exclude<CodePage, 'windows-1252'> | undefined {
  return encoding.startsWith('utf-') || encoding === 'iso-8859-1' || encoding === 'windows-1252'
    ? undefined
    : (encoding as Exclude<CodePage, 'windows-1252'>);
}

/** Whether a character may take more than one byte in `encoding` other than UTF-8 and UTF-16 (Shift_JIS, GBK...). */
export function multiByteLegacy(encoding: TextEncoding): encoding is 'shift_jis' | 'gbk' | 'big5' | 'euc-kr' {
  const page = legacyPage(encoding);
  return page !== undefined && isMultiByte(page);
}

/** The encoding a byte-order mark at the start of `head` names, if it starts with one. */
export function bomEncoding(head: Uint8Array): TextEncoding | undefined {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Bytes of the BOM `encoding` writes. */
export function bomLength(encoding: TextEncoding): number {
  return encoding === 'utf-8' ? 3 : encoding.startsWith('utf-16') ? 2 : 0;
}

/** Bytes per code unit: pages and lines of UTF-16 start and end on even bytes. */
export function unitBytes(encoding: TextEncoding): 1 | 2 {
  return encoding.startsWith('utf-16') ? 2 : 1;
}

export function encodingLabel(encoding: TextEncoding): string {
  return {
    'utf-8': 'UTF-8',
    'utf-16le': 'UTF-16LE',
    'utf-16be': 'UTF-16BE',
    'iso-8859-1': 'ISO-8859-1',
    cp437: 'CP437',
    cp850: 'CP850',
    cp866: 'CP866',
    'windows-1250': 'Windows-1250',
    'windows-1251': 'Windows-1251',
    'windows-1252': 'Windows-1252',
    shift_jis: 'Shift_JIS',
    gbk: 'GBK',
    big5: 'Big5',
    'euc-kr': 'EUC-KR',
  }[encoding];
}

// ignoreBOM: true keeps a BOM as U+FEFF instead of dropping it, so no byte goes missing.
const strict = {
  'utf-8': new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }),
  'utf-16le': new TextDecoder('utf-16le', { fatal: true, ignoreBOM: true }),
  'utf-16be': new TextDecoder('utf-16be', { fatal: true, ignoreBOM: true }),
  'windows-1252': new TextDecoder('windows-1252'),
};

/**
 * The characters `bytes` hold in `encoding`, a BOM kept as U+FEFF; undefined when they are not valid in it (UTF-8,
 * UTF-16 only).
 */
export function decodeText(bytes: Uint8Array, encoding: TextEncoding): string | undefined {
  // Node's latin1 is exact: byte n is U+00n
  if (encoding === 'iso-8859-1') return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  const page = legacyPage(encoding);
  if (page) return decodeCodePage(bytes, page);
  try {
    return strict[encoding as keyof typeof strict].decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Windows-1252's 0x80-0x9F; the five it leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) stand for the same C1 code
 * points, as WHATWG decodes them.
 */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';
const CP1252_BYTE = new Map([...CP1252_HIGH].map((char, i) => [char.charCodeAt(0), 0x80 + i]));

/** A character `encoding` cannot hold: where it is in the text, and the character itself. */
export interface Unencodable {
  index: number;
  char: string;
}

/** `text` as bytes in `encoding`, or the first character it cannot hold. */
export function encodeText(text: string, encoding: TextEncoding): Buffer | Unencodable {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const page = legacyPage(encoding);
  if (page) return encodeCodePage(text, page);
  if (encoding === 'utf-16le' || encoding === 'utf-16be') {
    const bytes = Buffer.alloc(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (encoding === 'utf-16le') bytes.writeUInt16LE(unit, i * 2);
      else bytes.writeUInt16BE(unit, i * 2);
    }
    return bytes;
  }
  const bytes = Buffer.alloc(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const byte =
      encoding === 'iso-8859-1'
        ? code <= 0xff
          ? code
          : undefined
        : code < 0x80 || (code >= 0xa0 && code <= 0xff)
          ? code
          : CP1252_BYTE.get(code);
    if (byte === undefined) return { index: i, char: String.fromCodePoint(text.codePointAt(i)!) };
    bytes[i] = byte;
  }
  return bytes;
}

/** encodeText, or INVALID_INPUT naming the character `encoding` cannot hold and where. */
export function encodeOrRefuse(text: string, encoding: TextEncoding, fileName: string): Buffer {
  const bytes = encodeText(text, encoding);
  if (Buffer.isBuffer(bytes)) return bytes;
  const code = `U+${bytes.char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  const line = text.slice(0, bytes.index).split('\n').length;
  throw new ZipfsError(
    'INVALID_INPUT',
    `${quote(fileName)} is ${encodingLabel(encoding)}, which cannot ` +
      `hold ${quote(bytes.char)} (${code}, line ${line} of the result); nothing was written. Use a ` +
      `character ${encodingLabel(encoding)} has (a \\u escape, if the file's format has one), or rewrite the whole ` +
      `file with write in UTF-8.`,
  );
}
