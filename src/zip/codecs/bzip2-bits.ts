/**
 * The bit reader under the bzip2 decoder (bzip2.ts): bits most significant first, pulled from an
 * entry's data in pieces (a whole buffer, or the chunks decodeStream is fed). The hot loop in
 * bzip2-block.ts reads `bits` and `count` directly and calls fill(); everything else goes
 * through read(). Past the end of the data, fill() pads with up to four zero bytes, so a peek of
 * 20 bits near the end of a valid stream needs no special case; consuming a padding bit is
 * truncation, found by checkEnd() (after each block) and read(), and a fifth padding byte throws.
 */
import { InflateError } from '../codec.ts';

const MAX_PADDING_BYTES = 4;

/** A fault in the data: corrupt bzip2 data, with the reason (ZIP_INVALID). */
export function damaged(reason: string): InflateError {
  return new InflateError(`corrupt bzip2 data (${reason})`, false);
}

export class BitReader {
  /** The last `count` bits read in, the next one highest; older bits above them are garbage. */
  bits = 0;
  count = 0;
  private piece: Uint8Array = new Uint8Array(0);
  private at = 0;
  /** Zero bytes added past the end of the data. */
  private padding = 0;
  private exhausted = false;

  constructor(private readonly source: Iterator<Uint8Array>) {}

  /** Brings `count` to at least 25 bits (up to 32). */
  fill(): void {
    while (this.count <= 24) {
      this.bits = (this.bits << 8) | this.nextByte();
      this.count += 8;
    }
  }

  /** The next `n` bits (1 to 24) as a number. */
  read(n: number): number {
    if (this.count < n) this.fill();
    this.count -= n;
    if (this.count < this.padding * 8) throw truncated();
    return (this.bits >>> this.count) & ((1 << n) - 1);
  }

  /** The next 32 bits, unsigned. */
  read32(): number {
    return ((this.read(16) << 16) | this.read(16)) >>> 0;
  }

  /** Throws when a bit past the end of the data was consumed (by the hot loop, which does not check). */
  checkEnd(): void {
    if (this.count < this.padding * 8) throw truncated();
  }

  /** Drops the bits left in the current byte: a stream ends on a byte boundary. */
  alignToByte(): void {
    this.count -= this.count & 7;
  }

  /** True when no byte is left (buffered bits or data): between streams, at a byte boundary. */
  atEnd(): boolean {
    if (this.count > this.padding * 8) return false;
    while (this.at >= this.piece.length) {
      if (this.exhausted || !this.nextPiece()) return true;
    }
    return false;
  }

  private nextByte(): number {
    while (this.at >= this.piece.length) {
      if (this.exhausted || !this.nextPiece()) {
        if (++this.padding > MAX_PADDING_BYTES) throw truncated();
        return 0;
      }
    }
    return this.piece[this.at++]!;
  }

  private nextPiece(): boolean {
    const next = this.source.next();
    if (next.done) {
      this.exhausted = true;
      return false;
    }
    this.piece = next.value;
    this.at = 0;
    return true;
  }
}

function truncated(): InflateError {
  return damaged('the data ends before the stream does: truncated');
}
