/**
 * The compressed bytes under the LZMA, LZMA2 and xz decoders: the entry's pieces pulled one at a
 * time from the caller's iterable, so a large entry is never held whole. The range decoder reads
 * bytes with no bounds check in its hot loop: it calls refill() once per symbol when `pos` passes
 * `safe`, and refill keeps MARGIN bytes ahead of it (a symbol reads at most 48), joining the tail of
 * one piece to the next and, after the last, padding with zeros so a read past the end is seen
 * (`pos > end`) and refused as cut-off data instead of read out of bounds.
 */
import { InflateError } from '../codec.ts';

const MARGIN = 64;
const NOTHING = new Uint8Array(0);

/** A fault in the data: ZIP_INVALID, with `reason` as its message. */
export function damaged(reason: string): InflateError {
  return new InflateError(reason, false);
}

export class ByteInput {
  buf: Uint8Array = NOTHING;
  pos = 0;
  /** Where the real bytes in `buf` end (zero padding may follow). */
  end = 0;
  /** The hot loop reads a symbol while `pos <= safe`. */
  safe = -1;
  /** The stream offset of `buf[0]`. */
  private base = 0;
  private last = false;
  private readonly pieces: Iterator<Uint8Array>;

  constructor(
    input: Iterable<Uint8Array>,
    /** What the data is, as a cut-off error names it ("LZMA data"). */
    readonly what: string,
  ) {
    this.pieces = input[Symbol.iterator]();
    this.refill();
  }

  /** Bytes read so far. */
  get offset(): number {
    return this.base + this.pos;
  }

  cutOff(): InflateError {
    return damaged(`${this.what} is cut off (the stream ends early)`);
  }

  /** Makes MARGIN bytes readable after `pos` (zeros past the last piece); throws when a read passed the end. */
  refill(): void {
    if (this.pos > this.end) throw this.cutOff();
    while (!this.last && this.end - this.pos <= MARGIN) {
      // The tail is copied before the next piece is asked for: a source may reuse its buffer.
      const tail = this.buf.slice(this.pos, this.end);
      const next = this.pieces.next();
      if (next.done) {
        this.last = true;
        const padded = new Uint8Array(tail.length + MARGIN);
        padded.set(tail);
        this.take(padded, tail.length);
      } else if (tail.length === 0) {
        // A plain Uint8Array, whatever the piece's class (a Buffer): the hot loop's reads stay of one shape.
        const piece = next.value;
        this.take(new Uint8Array(piece.buffer, piece.byteOffset, piece.length), piece.length);
      } else {
        const joined = new Uint8Array(tail.length + next.value.length);
        joined.set(tail);
        joined.set(next.value, tail.length);
        this.take(joined, joined.length);
      }
    }
    this.safe = this.last ? this.end : this.end - MARGIN;
  }

  private take(buf: Uint8Array, end: number): void {
    this.base += this.pos;
    this.buf = buf;
    this.pos = 0;
    this.end = end;
  }

  /** True when every byte has been read (pulling the next piece to know). */
  atEnd(): boolean {
    if (this.pos < this.end) return false;
    this.refill();
    return this.pos >= this.end;
  }

  byte(): number {
    if (this.pos >= this.end) {
      this.refill();
      if (this.pos >= this.end) throw this.cutOff();
    }
    return this.buf[this.pos++]!;
  }

  /** `length` bytes, as views each valid until the next read. */
  span(length: number, take: (piece: Uint8Array) => void): void {
    while (length > 0) {
      if (this.pos >= this.end) {
        this.refill();
        if (this.pos >= this.end) throw this.cutOff();
      }
      const n = Math.min(length, this.end - this.pos);
      take(this.buf.subarray(this.pos, this.pos + n));
      this.pos += n;
      length -= n;
    }
  }

  /** `length` bytes copied (header fields: small). */
  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    let at = 0;
    this.span(length, (piece) => {
      out.set(piece, at);
      at += piece.length;
    });
    return out;
  }
}
