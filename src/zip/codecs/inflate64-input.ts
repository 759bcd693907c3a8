/**
 * Deflate64's input, read bit by bit, least significant bit first (RFC 1951 3.1.1), from pieces
 * that come one at a time (a large entry is read 4 MiB at a time; a piece is used before the next
 * is asked for, as the reader may reuse its buffer). The inflate loop (inflate64.ts) reads the
 * fields directly, with no bounds check, while FAST_BYTES bytes are left in the piece; this class
 * tops the piece up when fewer are. Past the input's end it reads zeros, and counts how far: a
 * stream that used any of them is cut off, which `pastEnd` tells.
 */
import { InflateError } from '../codec.ts';

/** The most input one length and distance pair takes: 15 + 16 + 15 + 14 bits, rounded up. */
export const FAST_BYTES = 8;

const PADDING = new Uint8Array(64);
const EMPTY = new Uint8Array(0);

export function damaged(reason: string): InflateError {
  return new InflateError(`corrupt deflate64 data (${reason})`, false);
}

export class BitInput {
  /** The piece being read, `inPos` the next byte of it, `inEnd` its end. */
  input: Uint8Array = EMPTY;
  inPos = 0;
  inEnd = 0;
  /** Bits read but not used yet, the next one lowest; `bitCount` of them, at most 32. */
  bitBuf = 0;
  bitCount = 0;
  /** Where input[0] is in the whole stream, in bytes. */
  private base = 0;
  /** The stream's length in bytes once its last piece has come; -1 until then. */
  private realEnd = -1;
  private readonly source: Iterator<Uint8Array>;

  constructor(source: Iterable<Uint8Array>) {
    this.source = source[Symbol.iterator]();
  }

  /** Makes FAST_BYTES bytes or more readable at inPos: the piece's rest joined to the next, or zeros past the end. */
  ensureFast(): void {
    while (this.inEnd - this.inPos < FAST_BYTES) this.append(this.nextPiece() ?? PADDING);
  }

  /** The next piece, or undefined (the end noted) when the source has no more. */
  private nextPiece(): Uint8Array | undefined {
    if (this.realEnd >= 0) return undefined;
    const step = this.source.next();
    if (!step.done) return step.value;
    this.realEnd = this.base + this.inEnd;
    return undefined;
  }

  private append(piece: Uint8Array): void {
    const rest = this.inEnd - this.inPos;
    if (rest === 0) {
      this.base += this.inEnd;
      this.input = piece;
    } else {
      // The few bytes left of the old piece go before the new one: a copy of the piece, once for each 4 MiB.
      const joined = new Uint8Array(rest + piece.length);
      joined.set(this.input.subarray(this.inPos, this.inEnd));
      joined.set(piece, rest);
      this.base += this.inPos;
      this.input = joined;
    }
    this.inPos = 0;
    this.inEnd = this.input.length;
  }

  /** Whether the bits used so far run past the stream's end: it was cut off. */
  pastEnd(): boolean {
    return this.realEnd >= 0 && (this.base + this.inPos) * 8 - this.bitCount > this.realEnd * 8;
  }

  /** Throws when the stream was cut off (checked before any output is handed on, and at each block's start). */
  checkEnd(): void {
    if (this.pastEnd()) throw damaged('unexpected end of data');
  }

  /** A damaged stream's error; one that ran past its end says so instead of what the zeros after it made. */
  fail(reason: string): never {
    this.checkEnd();
    throw damaged(reason);
  }

  /** Makes at least `count` bits (up to 24) ready in bitBuf. */
  need(count: number): void {
    while (this.bitCount < count) {
      if (this.inPos >= this.inEnd) this.ensureFast();
      this.bitBuf |= this.input[this.inPos++]! << this.bitCount;
      this.bitCount += 8;
    }
  }

  /** Uses `count` bits already ready. */
  drop(count: number): void {
    this.bitBuf >>>= count;
    this.bitCount -= count;
  }

  /** The next `count` bits (up to 16) as a number, the first lowest. */
  bits(count: number): number {
    this.need(count);
    const value = this.bitBuf & ((1 << count) - 1);
    this.drop(count);
    this.checkEnd();
    return value;
  }

  /** Skips to the next byte boundary, as a stored block's header starts. */
  alignToByte(): void {
    this.drop(this.bitCount & 7);
  }

  /** Copies up to `count` bytes of a stored block to `out` at `at` (after alignToByte); returns how many it copied. */
  takeBytes(out: Uint8Array, at: number, count: number): number {
    let copied = 0;
    while (copied < count && this.bitCount >= 8) {
      out[at + copied++] = this.bitBuf & 0xff;
      this.drop(8);
    }
    while (copied < count) {
      if (this.inPos >= this.inEnd) {
        const piece = this.nextPiece();
        if (!piece) throw damaged('unexpected end of data');
        this.append(piece);
        continue;
      }
      const n = Math.min(count - copied, this.inEnd - this.inPos);
      out.set(this.input.subarray(this.inPos, this.inPos + n), at + copied);
      this.inPos += n;
      copied += n;
    }
    return copied;
  }

  /** Reads the source to its end after the last block: a layer under it checks itself there (AES's MAC). */
  drain(): void {
    if (this.realEnd < 0) while (!this.source.next().done);
  }
}
