/**
 * The Deflate64 inflater: block headers, stored blocks, and the loop that decodes Huffman-coded
 * ones into `out`. It decodes until the block ends or `pos` passes `limit`, then returns, so its
 * driver (deflate64.ts) can grow the buffer (a whole entry) or hand the output on and keep only
 * the 64 KiB window (a streamed one). `out` always has MAX_MATCH bytes free past `limit`, so the
 * loop checks room once a symbol. Written from RFC 1951 and APPNOTE 4.4.5, with zlib's infback9
 * and 7-Zip's decoder read for what Deflate64 changes (inflate64-tables.ts).
 */
import { BitInput, damaged } from './inflate64-input.ts';
import {
  BITS_MASK,
  buildTable,
  CODE_LENGTH_BITS,
  CODE_LENGTH_TABLE_SIZE,
  DISTANCE_PRIMARY_BITS,
  DISTANCE_TABLE_SIZE,
  END_OF_BLOCK,
  FIXED_DISTANCES,
  FIXED_LITERALS,
  INVALID,
  KIND_MASK,
  LENGTH,
  LITERAL,
  LITERAL_PRIMARY_BITS,
  LITERAL_TABLE_SIZE,
  SUBTABLE,
  type TableSpec,
} from './inflate64-tables.ts';

/** The longest match: length code 285 with all 16 extra bits set. */
export const MAX_MATCH = 65538;
/** The farthest back a distance reaches: code 31 with all 14 extra bits set. */
export const WINDOW = 65536;

const HEADER = 0;
const STORED = 1;
const CODED = 2;

const LITERAL_MASK = (1 << LITERAL_PRIMARY_BITS) - 1;
const DISTANCE_MASK = (1 << DISTANCE_PRIMARY_BITS) - 1;
/** A match shorter than this is copied byte by byte: cheaper than a copyWithin call. */
const SHORT_MATCH = 32;
const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

export class Inflate64 extends BitInput {
  /** The output so far, or the window and the output since the last hand-over; `pos` where the next byte goes. */
  out = new Uint8Array(0);
  pos = 0;
  /** Decoding stops once pos passes this; the driver keeps out.length - limit >= MAX_MATCH. */
  limit = 0;
  private mode = HEADER;
  private last = false;
  private storedLeft = 0;
  private literals = FIXED_LITERALS;
  private distances = FIXED_DISTANCES;
  private readonly dynamicLiterals = new Int32Array(LITERAL_TABLE_SIZE);
  private readonly dynamicDistances = new Int32Array(DISTANCE_TABLE_SIZE);
  private readonly codeLengthTable = new Int32Array(CODE_LENGTH_TABLE_SIZE);
  private readonly lengths = new Uint8Array(320);

  /** Decodes until the stream ends (true; its input read to the end) or pos passes limit (false). */
  run(): boolean {
    for (;;) {
      if (this.mode === CODED) {
        if (!this.codes()) return false;
      } else if (this.mode === STORED) {
        if (!this.stored()) return false;
      } else if (this.last) {
        this.checkEnd();
        this.drain();
        return true;
      } else {
        this.header();
      }
    }
  }

  /** A damaged stream's error; one that ran past its end says so instead of what the zeros after it made. */
  private fail(reason: string): never {
    this.checkEnd();
    throw damaged(reason);
  }

  private header(): void {
    this.last = this.bits(1) === 1;
    const type = this.bits(2);
    if (type === 0) {
      this.alignToByte();
      const length = this.bits(16);
      if (this.bits(16) !== (~length & 0xffff)) this.fail('stored block length does not match its complement');
      this.storedLeft = length;
      this.mode = STORED;
    } else if (type === 1) {
      this.literals = FIXED_LITERALS;
      this.distances = FIXED_DISTANCES;
      this.mode = CODED;
    } else if (type === 2) {
      this.dynamicTables();
      this.mode = CODED;
    } else {
      this.fail('invalid block type');
    }
  }

  private stored(): boolean {
    while (this.storedLeft > 0) {
      const room = Math.min(this.storedLeft, this.out.length - this.pos);
      if (room === 0 || this.pos > this.limit) return false;
      const copied = this.takeBytes(this.out, this.pos, room);
      this.pos += copied;
      this.storedLeft -= copied;
    }
    this.mode = HEADER;
    return true;
  }

  /** A dynamic block's code: the code lengths' own code, then the lengths, run-length coded (RFC 1951 3.2.7). */
  private dynamicTables(): void {
    const literalCount = this.bits(5) + 257;
    const distanceCount = this.bits(5) + 1;
    const codeCount = this.bits(4) + 4;
    if (literalCount > 286) this.fail('too many literal/length codes');
    const lengths = this.lengths;
    lengths.fill(0, 0, 19);
    for (let index = 0; index < codeCount; index++) lengths[CODE_LENGTH_ORDER[index]!] = this.bits(3);
    this.build(this.codeLengthTable, { kind: 'code length', lengths, at: 0, count: 19, primaryBits: CODE_LENGTH_BITS });
    const total = literalCount + distanceCount;
    const table = this.codeLengthTable;
    let index = 0;
    while (index < total) {
      this.need(CODE_LENGTH_BITS);
      const entry = table[this.bitBuf & ((1 << CODE_LENGTH_BITS) - 1)]!;
      if ((entry & KIND_MASK) === INVALID) this.fail('invalid code length code');
      this.drop(entry & BITS_MASK);
      this.checkEnd();
      const symbol = entry >>> 8;
      if (symbol < 16) {
        lengths[index++] = symbol;
        continue;
      }
      if (symbol === 16 && index === 0) this.fail('code length repeat with no length before it');
      const value = symbol === 16 ? lengths[index - 1]! : 0;
      const repeat = symbol === 16 ? 3 + this.bits(2) : symbol === 17 ? 3 + this.bits(3) : 11 + this.bits(7);
      if (index + repeat > total) this.fail('code length repeat past the last code');
      lengths.fill(value, index, index + repeat);
      index += repeat;
    }
    if (lengths[256] === 0) this.fail('no end-of-block code');
    const literals = { kind: 'literal/length', lengths, at: 0, count: literalCount } as const;
    this.build(this.dynamicLiterals, { ...literals, primaryBits: LITERAL_PRIMARY_BITS });
    const distances = { kind: 'distance', lengths, at: literalCount, count: distanceCount } as const;
    this.build(this.dynamicDistances, { ...distances, primaryBits: DISTANCE_PRIMARY_BITS });
    this.literals = this.dynamicLiterals;
    this.distances = this.dynamicDistances;
  }

  private build(table: Int32Array, spec: TableSpec): void {
    const fault = buildTable(table, spec);
    if (fault) this.fail(fault);
  }

  /**
   * The hot loop: one literal, or one length and distance, a turn, with the reader's state in
   * locals. While FAST_BYTES input bytes are left no read is bounds-checked: each turn reads at most
   * that many. Returns true at the block's end, false when pos passes limit.
   */
  private codes(): boolean {
    const out = this.out;
    const literals = this.literals;
    const distances = this.distances;
    const limit = this.limit;
    let input = this.input;
    let inPos = this.inPos;
    let inEnd = this.inEnd;
    let bitBuf = this.bitBuf;
    let bitCount = this.bitCount;
    let pos = this.pos;
    let ended = false;
    while (pos <= limit) {
      if (inEnd - inPos < 8) {
        this.inPos = inPos;
        this.ensureFast();
        input = this.input;
        inPos = this.inPos;
        inEnd = this.inEnd;
      }
      if (bitCount < 15) {
        bitBuf |= (input[inPos++]! << bitCount) | (input[inPos++]! << (bitCount + 8));
        bitCount += 16;
      }
      let entry = literals[bitBuf & LITERAL_MASK]!;
      if ((entry & KIND_MASK) === SUBTABLE) {
        bitBuf >>>= LITERAL_PRIMARY_BITS;
        bitCount -= LITERAL_PRIMARY_BITS;
        entry = literals[((entry >>> 8) & 0xffff) + (bitBuf & ((1 << (entry >>> 24)) - 1))]!;
      }
      bitBuf >>>= entry & BITS_MASK;
      bitCount -= entry & BITS_MASK;
      const kind = entry & KIND_MASK;
      if (kind === LITERAL) {
        out[pos++] = entry >>> 8;
        continue;
      }
      if (kind !== LENGTH) {
        this.keep(inPos, bitBuf, bitCount, pos);
        if (kind === END_OF_BLOCK) {
          ended = true;
          break;
        }
        this.fail('invalid literal/length code');
      }
      let length = (entry >>> 8) & 0x1ffff;
      let extra = entry >>> 25;
      if (extra !== 0) {
        if (bitCount < extra) {
          bitBuf |= (input[inPos++]! << bitCount) | (input[inPos++]! << (bitCount + 8));
          bitCount += 16;
        }
        length += bitBuf & ((1 << extra) - 1);
        bitBuf >>>= extra;
        bitCount -= extra;
      }
      if (bitCount < 15) {
        bitBuf |= (input[inPos++]! << bitCount) | (input[inPos++]! << (bitCount + 8));
        bitCount += 16;
      }
      entry = distances[bitBuf & DISTANCE_MASK]!;
      if ((entry & KIND_MASK) === SUBTABLE) {
        bitBuf >>>= DISTANCE_PRIMARY_BITS;
        bitCount -= DISTANCE_PRIMARY_BITS;
        entry = distances[((entry >>> 8) & 0xffff) + (bitBuf & ((1 << (entry >>> 24)) - 1))]!;
      }
      bitBuf >>>= entry & BITS_MASK;
      bitCount -= entry & BITS_MASK;
      if ((entry & KIND_MASK) !== LENGTH) {
        this.keep(inPos, bitBuf, bitCount, pos);
        this.fail('invalid distance code');
      }
      let distance = (entry >>> 8) & 0x1ffff;
      extra = entry >>> 25;
      if (extra !== 0) {
        if (bitCount < extra) {
          bitBuf |= (input[inPos++]! << bitCount) | (input[inPos++]! << (bitCount + 8));
          bitCount += 16;
        }
        distance += bitBuf & ((1 << extra) - 1);
        bitBuf >>>= extra;
        bitCount -= extra;
      }
      if (distance > pos) {
        this.keep(inPos, bitBuf, bitCount, pos);
        this.fail('distance too far back');
      }
      pos = copyMatch(out, pos, distance, length);
    }
    this.keep(inPos, bitBuf, bitCount, pos);
    if (ended) this.mode = HEADER;
    return ended;
  }

  private keep(inPos: number, bitBuf: number, bitCount: number, pos: number): void {
    this.inPos = inPos;
    this.bitBuf = bitBuf;
    this.bitCount = bitCount;
    this.pos = pos;
  }
}

/** Copies `length` bytes from `distance` back to `pos` (they may overlap: a run); returns the new pos. */
function copyMatch(out: Uint8Array, at: number, distance: number, length: number): number {
  let pos = at;
  let from = pos - distance;
  const end = pos + length;
  if (length < SHORT_MATCH) {
    while (pos < end) out[pos++] = out[from++]!;
  } else if (distance >= length) {
    out.copyWithin(pos, from, from + length);
    pos = end;
  } else if (distance === 1) {
    out.fill(out[from]!, pos, end);
    pos = end;
  } else {
    // Overlapping: what is there repeats with the distance's period, so each copy can take all of it.
    while (pos < end) {
      const n = Math.min(end - pos, pos - from);
      out.copyWithin(pos, from, from + n);
      pos += n;
    }
  }
  return pos;
}
