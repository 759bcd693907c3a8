/**
 * The LZMA dictionary: the output so far, which matches copy from. Whole, it is the entry's
 * buffer (declared size + 1, so one byte too many is seen as an overflow, never written out of
 * bounds; past 16 MiB it starts there and doubles as needed, so a lying size costs no more than the
 * data holds); streamed, it is a ring of the dictionary's size (at least 1 MiB, at most the entry's),
 * and each stretch is handed on before the ring wraps over it.
 */

/** The largest dictionary zipfs accepts: more is refused as bomb-like (xz -9 uses 64 MiB, 7-Zip's largest 1.5 GiB). */
export const MAX_DICTIONARY = 1536 * 1024 * 1024;
const MIN_RING = 1 << 20;
const FIRST_WHOLE = 16 << 20;

export class Window {
  buf: Uint8Array;
  size: number;
  /** Where the next byte goes in `buf`. */
  pos = 0;
  /** Bytes written since the start. */
  total = 0;
  /** `total` at the last dictionary reset (LZMA2): matches may not reach before it. */
  dictStart = 0;
  private emitted = 0;

  constructor(
    size: number,
    /** Takes each written stretch, a view valid until the window writes again. */
    private readonly onEmit?: (piece: Uint8Array) => void,
    /** A whole window grows up to this size; a ring (0) wraps. */
    private readonly wholeSize = 0,
  ) {
    this.size = size;
    this.buf = new Uint8Array(size);
  }

  /** A window holding the whole output of an entry declaring `declaredSize` bytes. */
  static whole(declaredSize: number, onEmit?: (piece: Uint8Array) => void): Window {
    return new Window(Math.min(declaredSize + 1, FIRST_WHOLE), onEmit, declaredSize + 1);
  }

  /** A ring for a streamed entry of `declaredSize` bytes whose dictionary is `dictionary` bytes. */
  static ring(dictionary: number, declaredSize: number, onEmit: (piece: Uint8Array) => void): Window {
    return new Window(Math.min(Math.max(dictionary, MIN_RING), declaredSize + 1), onEmit);
  }

  /** The output, when the window is whole. */
  output(): Uint8Array {
    return this.buf.subarray(0, this.total);
  }

  /** Hands on what was written since the last call; at the ring's end, starts it again (a whole window grows). */
  emit(): void {
    if (this.pos > this.emitted) this.onEmit?.(this.buf.subarray(this.emitted, this.pos));
    this.emitted = this.pos;
    if (this.pos === this.size && this.size < this.wholeSize) {
      this.size = Math.min(this.size * 2, this.wholeSize);
      const grown = new Uint8Array(this.size);
      grown.set(this.buf);
      this.buf = grown;
    } else if (this.pos === this.size) {
      this.pos = 0;
      this.emitted = 0;
    }
  }

  resetDictionary(): void {
    this.dictStart = this.total;
  }

  /** Copies bytes in (an LZMA2 chunk stored as it is). */
  write(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; ) {
      if (this.pos === this.size) this.emit();
      const n = Math.min(bytes.length - at, this.size - this.pos);
      this.buf.set(bytes.subarray(at, at + n), this.pos);
      this.pos += n;
      this.total += n;
      at += n;
    }
  }
}
