/**
 * The Deflate64 inflater: block headers, stored blocks, and the loop that decodes Huffman-coded
 * ones into `out`. It decodes until the block ends or `pos` passes `limit`, then returns, so its
 * driver (deflate64.ts) can grow the buffer (a whole entry) or hand the output on and keep only
 * the 64 KiB window (a streamed one). The loop checks room once a symbol: `limit` is below
 * out.length, so a literal always fits; a match that does not fit waits (pendingLength) for the
 * room the driver makes. Written from RFC 1951 and APPNOTE 4.4.5; what Deflate64 changes
 * (inflate64-tables.ts) checked against zlib's contrib/infback9 tables and 7-Zip's own output.
 */
import { type DynamicTables, giveBackTables, readDynamicTables, takeTables } from './inflate64-dynamic.ts';
import { BitInput } from './inflate64-input.ts';
import {
  BITS_MASK,
  DISTANCE_PRIMARY_BITS,
  END_OF_BLOCK,
  KIND_MASK,
  fixedTables,
  LENGTH,
  LITERAL,
  LITERAL_PRIMARY_BITS,
  SUBTABLE,
} from './inflate64-tables.ts';

/** The farthest back a distance reaches: code 31 with all 14 extra bits set. */
export const WINDOW = 65536;

const HEADER = 0;
const STORED = 1;
const CODED = 2;

const LITERAL_MASK = (1 << LITERAL_PRIMARY_BITS) - 1;
const DISTANCE_MASK = (1 << DISTANCE_PRIMARY_BITS) - 1;
/** A match shorter than this is copied byte by byte: cheaper than a copyWithin call. */
const SHORT_MATCH = 32;

export class Inflate64 extends BitInput {
  /** The output so far, or the window and the output since the last hand-over; `pos` where the next byte goes. */
  out = new Uint8Array(0);
  pos = 0;
  /** Decoding stops once pos passes this; the driver keeps it below out.length. */
  limit = 0;
  private mode = HEADER;
  private last = false;
  private storedLeft = 0;
  // Set by every block header before a symbol is read (a stored, fixed or dynamic block).
  private literals: Int32Array = new Int32Array(0);
  private distances: Int32Array = new Int32Array(0);
  private tables: DynamicTables | undefined;
  /** A match decoded when `out` had no room for it, copied first when there is (the driver makes room for it). */
  pendingLength = 0;
  private pendingDistance = 0;

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
        if (this.tables) giveBackTables(this.tables);
        this.tables = undefined;
        return true;
      } else {
        this.header();
      }
    }
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
      ({ literals: this.literals, distances: this.distances } = fixedTables());
      this.mode = CODED;
    } else if (type === 2) {
      this.tables ??= takeTables();
      readDynamicTables(this, this.tables);
      this.literals = this.tables.literals;
      this.distances = this.tables.distances;
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

  /**
   * The hot loop: one literal, or one length and distance, a turn, with the reader's state in
   * locals. While FAST_BYTES input bytes are left no read is bounds-checked: each turn reads at most
   * that many. Returns true at the block's end, false when pos passes limit or a match waits for room.
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
    if (this.pendingLength !== 0) {
      if (pos + this.pendingLength > out.length) return false;
      pos = copyMatch(out, pos, this.pendingDistance, this.pendingLength);
      this.pendingLength = 0;
    }
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
      if (pos + length > out.length) {
        this.pendingLength = length;
        this.pendingDistance = distance;
        break;
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
