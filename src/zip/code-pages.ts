/**
 * The legacy code pages zipfs reads entry names in (open and inspect's
 * name_encoding) and reads, greps and edits files in (encoding): decoded and
 * encoded exactly, a character a code page cannot hold refused, never
 * written as '?'.
 *
 * The runtime decodes the WHATWG ones (cp866 is WHATWG's ibm866; gbk is
 * WHATWG's GB18030 decoder). CP437 and CP850 are not WHATWG encodings: their
 * tables are here. There is no encoder in the runtime for any of them, so
 * encoding inverts decoding: a single-byte page's 256 characters, or every
 * valid lead/trail pair of a multi-byte one, decoded once and cached. Where
 * several byte sequences decode to one character (Shift_JIS's NEC-selected IBM
 * rows, Big5's HKSCS), the one WHATWG's encoder writes is kept, so what a
 * Windows tool wrote comes back the same; a file holding the other sequence
 * does not round-trip, and edit refuses it (read-text.ts). Nothing is built
 * until a code page is used: start-up pays nothing.
 */

export const CODE_PAGES = [
  'cp437',
  'cp850',
  'cp866',
  'windows-1250',
  'windows-1251',
  'windows-1252',
  'shift_jis',
  'gbk',
  'big5',
  'euc-kr',
] as const;
export type CodePage = (typeof CODE_PAGES)[number];
export type MultiByteCodePage = 'shift_jis' | 'gbk' | 'big5' | 'euc-kr';

export function isMultiByte(page: CodePage): page is MultiByteCodePage {
  return page === 'shift_jis' || page === 'gbk' || page === 'big5' || page === 'euc-kr';
}

export const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐' +
  '└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';
const CP850_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐' +
  '└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0';

type Label = NonNullable<ConstructorParameters<typeof TextDecoder>[0]>;

/** The runtime's (WHATWG) label of a code page, or undefined for the two it lacks. */
function runtimeLabel(page: CodePage): Label | undefined {
  if (page === 'cp437' || page === 'cp850') return undefined;
  return page === 'cp866' ? 'ibm866' : page;
}

const fatalDecoders = new Map<CodePage, TextDecoder>();
function fatalDecoder(page: CodePage): TextDecoder {
  let decoder = fatalDecoders.get(page);
  if (!decoder) fatalDecoders.set(page, (decoder = new TextDecoder(runtimeLabel(page), { fatal: true })));
  return decoder;
}

/** A single-byte code page's 256 characters, byte n at index n. */
const tables = new Map<CodePage, string>();
function byteTable(page: CodePage): string {
  let table = tables.get(page);
  if (table !== undefined) return table;
  const ascii = String.fromCharCode(...Array.from({ length: 128 }, (_, i) => i));
  if (page === 'cp437') table = ascii + CP437_HIGH;
  else if (page === 'cp850') table = ascii + CP850_HIGH;
  else table = new TextDecoder(runtimeLabel(page)).decode(Uint8Array.from({ length: 256 }, (_, i) => i));
  if (table.length !== 256) throw new Error(`the ${page} table has ${table.length} characters`);
  tables.set(page, table);
  return table;
}

/** `bytes` decoded by a table, a piece at a time (one call per character would be slow on a 64 MiB file). */
function decodeByTable(bytes: Uint8Array, table: string): string {
  const units = new Uint16Array(Math.min(bytes.length, 8192));
  let out = '';
  for (let at = 0; at < bytes.length; at += units.length) {
    const n = Math.min(units.length, bytes.length - at);
    for (let i = 0; i < n; i++) units[i] = table.charCodeAt(bytes[at + i]!);
    out += String.fromCharCode(...units.subarray(0, n));
  }
  return out;
}

/** A fatal decoder of a WHATWG code page (all but cp437 and cp850), for checking a file in pieces (stream: true). */
export function strictCodePageDecoder(page: Exclude<CodePage, 'cp437' | 'cp850'>): TextDecoder {
  return new TextDecoder(runtimeLabel(page), { fatal: true });
}

/** The characters `bytes` hold in `page`, or undefined when they are not valid in it (multi-byte pages only). */
export function decodeCodePage(bytes: Uint8Array, page: CodePage): string | undefined {
  if (page === 'cp437' || page === 'cp850') return decodeByTable(bytes, byteTable(page));
  try {
    return fatalDecoder(page).decode(bytes);
  } catch {
    return undefined; // single-byte WHATWG pages map every byte: only a multi-byte page gets here
  }
}

/**
 * A decoder fed a file's bytes in pieces, then `undefined` once at the end: a character split between pieces comes
 * out whole; bytes a multi-byte page rejects become U+FFFD (grep goes on past them).
 */
export function codePageStream(page: CodePage): (bytes: Uint8Array | undefined) => string {
  if (page === 'cp437' || page === 'cp850') {
    const table = byteTable(page);
    return (bytes) => (bytes ? decodeByTable(bytes, table) : '');
  }
  const decoder = new TextDecoder(runtimeLabel(page));
  return (bytes) => (bytes ? decoder.decode(bytes, { stream: true }) : decoder.decode());
}

/**
 * Each character's bytes in `page`: a value under 0x100 is one byte, above it a lead (high byte) and trail (low byte).
 * Built from the decoder, so every entry round-trips by construction.
 */
const encoders = new Map<CodePage, Map<number, number>>();
function encoderOf(page: CodePage): Map<number, number> {
  let map = encoders.get(page);
  if (map) return map;
  map = new Map();
  if (isMultiByte(page)) fillMultiByte(map, page);
  else {
    const table = byteTable(page);
    for (let byte = 0; byte < 256; byte++) if (!map.has(table.charCodeAt(byte))) map.set(table.charCodeAt(byte), byte);
  }
  encoders.set(page, map);
  return map;
}

/** Big5 characters with two sequences for which WHATWG's encoder writes the last one (Encoding standard, index). */
const BIG5_LAST = new Set([0x2550, 0x255e, 0x2561, 0x256a, 0x5341, 0x5345]);

/**
 * The lead bytes in the order their sequences are preferred: a character met first keeps its sequence. Shift_JIS's
 * 0xED-0xEE (NEC-selected IBM extensions) and Big5's 0x81-0xA0 (HKSCS) come last, as WHATWG's encoders leave them.
 */
function leadOrder(page: MultiByteCodePage): number[] {
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  if (page === 'shift_jis') return [...range(0x81, 0x9f), ...range(0xe0, 0xec), ...range(0xef, 0xfc), 0xed, 0xee];
  if (page === 'big5') return [...range(0xa1, 0xfe), ...range(0x81, 0xa0)];
  return range(0x81, 0xfe);
}

function fillMultiByte(map: Map<number, number>, page: MultiByteCodePage): void {
  const decoder = new TextDecoder(runtimeLabel(page));
  const one = (text: string) => {
    const code = text.codePointAt(0);
    return code !== undefined && code !== 0xfffd && text.length === (code > 0xffff ? 2 : 1) ? code : undefined;
  };
  for (let byte = 0x80; byte < 0x100; byte++) {
    const code = one(decoder.decode(Uint8Array.of(byte)));
    if (code !== undefined && !map.has(code)) map.set(code, byte);
  }
  // Every trail after a lead, each pair followed by a newline, decoded in one call: one piece per pair.
  const trails = Array.from({ length: 0xff - 0x40 }, (_, i) => 0x40 + i);
  const pairs = new Uint8Array(trails.length * 3);
  for (const lead of leadOrder(page)) {
    trails.forEach((trail, i) => pairs.set([lead, trail, 0x0a], i * 3));
    const pieces = decoder.decode(pairs).split('\n');
    trails.forEach((trail, i) => {
      const code = one(pieces[i]!);
      if (code !== undefined && (!map.has(code) || (page === 'big5' && BIG5_LAST.has(code))))
        map.set(code, (lead << 8) | trail);
    });
  }
}

/** A character a code page cannot hold: where it is in the text, and the character itself. */
export interface Unencodable {
  index: number;
  char: string;
}

/** `text` as bytes in `page`, or the first character it cannot hold. */
export function encodeCodePage(text: string, page: CodePage): Buffer | Unencodable {
  const map = encoderOf(page);
  const bytes = Buffer.allocUnsafe(text.length * 2);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.codePointAt(i)!;
    const value = code < 0x80 ? code : map.get(code);
    if (value === undefined) return { index: i, char: String.fromCodePoint(code) };
    if (code > 0xffff) i++;
    if (value > 0xff) bytes[length++] = value >> 8;
    bytes[length++] = value & 0xff;
  }
  return bytes.subarray(0, length);
}
