/**
 * Deflate64's Huffman decoding tables (inflate64.ts decodes with them). A code is looked up by its
 * next bits, least significant first: a primary table indexed by PRIMARY bits gives the symbol and
 * its length, or, for a longer code, a link to a subtable indexed by the bits after them.
 *
 * An entry is an int: bits 0-4 the bits it consumes (a subtable entry: those after the primary
 * ones), bits 5-7 its kind, bits 8 up its value: a literal's byte, a length's or distance's base
 * with its extra bits' count at bit 17 of the value, a link's subtable offset with its index width
 * at bit 16 of the value. Deflate64 (APPNOTE 4.4.5 method 9) is deflate with a 64 KiB window:
 * length code 285 is 3 plus 16 extra bits (deflate's 258), distance codes 30 and 31 are used.
 */

export const KIND_MASK = 0xe0;
export const LITERAL = 0x00;
/** A length (in the literal/length table), a distance (in the distance table). */
export const LENGTH = 0x20;
export const END_OF_BLOCK = 0x40;
export const SUBTABLE = 0x60;
export const INVALID = 0x80;
export const BITS_MASK = 0x1f;

export const LITERAL_PRIMARY_BITS = 10;
export const DISTANCE_PRIMARY_BITS = 8;
export const CODE_LENGTH_BITS = 7;
const MAX_BITS = 15;

/** Where a table's entries fit at most: the primary table, and one subtable per code longer than it. */
export const LITERAL_TABLE_SIZE = (1 << LITERAL_PRIMARY_BITS) + 288 * (1 << (MAX_BITS - LITERAL_PRIMARY_BITS));
export const DISTANCE_TABLE_SIZE = (1 << DISTANCE_PRIMARY_BITS) + 32 * (1 << (MAX_BITS - DISTANCE_PRIMARY_BITS));
export const CODE_LENGTH_TABLE_SIZE = 1 << CODE_LENGTH_BITS;

const LENGTH_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 3,
];
const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16];
const DISTANCE_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577, 32769, 49153,
];

function entry(kind: number, value: number, bits = 0): number {
  return (value << 8) | kind | bits;
}

export type TableKind = 'literal/length' | 'distance' | 'code length';

interface Lookups {
  /** Each kind's entry per symbol, bits left out (literal/length: 0-255 bytes, 256 the end, 257-285 lengths). */
  symbols: Record<TableKind, Int32Array>;
  /** Each byte with its bits in reverse order. */
  reversed: Uint8Array;
}

let lookups: Lookups | undefined;

/**
 * The tables every Huffman table is built from, made at the first Deflate64 entry, not at load: every process loads
 * the codec registry, and these loops run cold cost milliseconds of start-up.
 */
function tableLookups(): Lookups {
  if (lookups) return lookups;
  const literals = Int32Array.from({ length: 288 }, (_, symbol) => {
    if (symbol < 256) return entry(LITERAL, symbol);
    if (symbol === 256) return entry(END_OF_BLOCK, 0);
    if (symbol > 285) return entry(INVALID, 0);
    return entry(LENGTH, LENGTH_BASE[symbol - 257]! | (LENGTH_EXTRA[symbol - 257]! << 17));
  });
  const distances = Int32Array.from({ length: 32 }, (_, symbol) => {
    const extra = symbol < 4 ? 0 : (symbol >> 1) - 1;
    return entry(LENGTH, DISTANCE_BASE[symbol]! | (extra << 17));
  });
  const codeLengths = Int32Array.from({ length: 19 }, (_, symbol) => entry(LITERAL, symbol));
  const reversed = Uint8Array.from({ length: 256 }, (_, byte) => {
    let bitsReversed = 0;
    for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) bitsReversed |= 0x80 >> bit;
    return bitsReversed;
  });
  lookups = { symbols: { 'literal/length': literals, distance: distances, 'code length': codeLengths }, reversed };
  return lookups;
}

/** `code`'s low `bits` bits in reverse order: deflate sends a Huffman code's first bit first, into the low bit. */
function reverse(reversed: Uint8Array, code: number, bits: number): number {
  return ((reversed[code & 0xff]! << 8) | reversed[code >>> 8]!) >>> (16 - bits);
}

const counts = new Int32Array(MAX_BITS + 1);
const nextCode = new Int32Array(MAX_BITS + 1);

/** What a table is built from: `count` code lengths of `lengths` from `at`, for symbols 0 up. */
export interface TableSpec {
  kind: TableKind;
  lengths: Uint8Array;
  at: number;
  count: number;
  primaryBits: number;
}

/**
 * Fills `table` with the canonical Huffman code of the given lengths. Returns why the lengths make
 * no code, or undefined: an over-subscribed set, and an incomplete one, are damage, except a code
 * of one symbol of one bit or of none at all, as zlib allows (its unused entries read as invalid),
 * but for the code lengths' own code, which must be complete.
 */
export function buildTable(table: Int32Array, spec: TableSpec): string | undefined {
  const { lengths, at, count, primaryBits } = spec;
  counts.fill(0);
  for (let symbol = 0; symbol < count; symbol++) counts[lengths[at + symbol]!]!++;
  let longest = MAX_BITS;
  while (longest > 0 && counts[longest] === 0) longest--;
  let left = 1;
  for (let bits = 1; bits <= MAX_BITS; bits++) {
    left = (left << 1) - counts[bits]!;
    if (left < 0) return `over-subscribed ${spec.kind} code`;
  }
  if (left > 0 && (longest > 1 || spec.kind === 'code length')) return `incomplete ${spec.kind} code`;
  let code = 0;
  counts[0] = 0;
  for (let bits = 1; bits <= MAX_BITS; bits++) {
    code = (code + counts[bits - 1]!) << 1;
    nextCode[bits] = code;
  }
  const primarySize = 1 << primaryBits;
  const subBits = Math.max(longest - primaryBits, 0);
  const invalid = entry(INVALID, 0);
  table.fill(invalid, 0, primarySize);
  let used = primarySize;
  const { symbols: bySymbol, reversed: reversedBytes } = tableLookups();
  const symbols = bySymbol[spec.kind];
  for (let symbol = 0; symbol < count; symbol++) {
    const bits = lengths[at + symbol]!;
    if (bits === 0) continue;
    const reversed = reverse(reversedBytes, nextCode[bits]!++, bits);
    if (bits <= primaryBits) {
      for (let slot = reversed; slot < primarySize; slot += 1 << bits) table[slot] = symbols[symbol]! | bits;
      continue;
    }
    const low = reversed & (primarySize - 1);
    if ((table[low]! & KIND_MASK) !== SUBTABLE) {
      table[low] = entry(SUBTABLE, used | (subBits << 16), primaryBits);
      table.fill(invalid, used, used + (1 << subBits));
      used += 1 << subBits;
    }
    const offset = (table[low]! >>> 8) & 0xffff;
    const rest = bits - primaryBits;
    for (let slot = reversed >>> primaryBits; slot < 1 << subBits; slot += 1 << rest)
      table[offset + slot] = symbols[symbol]! | rest;
  }
  return undefined;
}

function fixedTable(kind: TableKind, lengths: number[], primaryBits: number, size: number): Int32Array {
  const table = new Int32Array(size);
  const fault = buildTable(table, {
    kind,
    lengths: Uint8Array.from(lengths),
    at: 0,
    count: lengths.length,
    primaryBits,
  });
  if (fault) throw new Error(fault);
  return table;
}

let fixed: { literals: Int32Array; distances: Int32Array } | undefined;

/**
 * The fixed code of a block of type 1 (RFC 1951 3.2.6), distance codes 30 and 31 included. Built at the first
 * Deflate64 entry, not at load: every process loads the codec registry, and building them cold cost ~5 ms of start-up.
 */
export function fixedTables(): { literals: Int32Array; distances: Int32Array } {
  fixed ??= {
    literals: fixedTable(
      'literal/length',
      Array.from({ length: 288 }, (_, symbol) => (symbol < 144 ? 8 : symbol < 256 ? 9 : symbol < 280 ? 7 : 8)),
      LITERAL_PRIMARY_BITS,
      LITERAL_TABLE_SIZE,
    ),
    distances: fixedTable('distance', new Array(32).fill(5), DISTANCE_PRIMARY_BITS, DISTANCE_TABLE_SIZE),
  };
  return fixed;
}
