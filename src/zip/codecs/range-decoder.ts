/**
 * The range decoder of LZMA (LZMA SDK's LzmaDec.c, xz-embedded's rc_*): bits under adaptive
 * probabilities, normalized before each bit so that a stream's last byte is its last read (the
 * caller normalizes once at the end, then all input is consumed and `code` is 0).
 */
import { ByteInput, damaged } from './lzma-input.ts';

export const TOP = 1 << 24;

/*
 * `range` and `code` are unsigned 32-bit values held in int32s (measured: about twice as fast in
 * the bit loop as doubles): shifts and Math.imul keep them there, and an unsigned comparison is a
 * signed one of both sides xor 0x80000000.
 */

/** The range decoder, reading the input it extends. */
export class RangeDecoder extends ByteInput {
  range = 0;
  code = 0;

  /** Starts a range-coded stretch: a zero byte, then the code's 4 bytes. */
  init(): void {
    if (this.byte() !== 0) throw damaged(`${this.what} is damaged (its range coder does not start with 0)`);
    this.code = (this.byte() << 24) | (this.byte() << 16) | (this.byte() << 8) | this.byte();
    this.range = -1;
    if (this.code === -1) throw damaged(`${this.what} is damaged (bad range coder start)`);
  }

  normalize(): void {
    if (this.range >>> 0 < TOP) {
      this.range <<= 8;
      this.code = (this.code << 8) | this.buf[this.pos++]!;
    }
  }

  /** One bit under probability `probs[i]`, which adapts. */
  bit(probs: Uint16Array, i: number): number {
    let range = this.range;
    let code = this.code;
    if (range >>> 0 < TOP) {
      range <<= 8;
      code = (code << 8) | this.buf[this.pos++]!;
    }
    const p = probs[i]!;
    const bound = Math.imul(range >>> 11, p);
    if ((code ^ 0x80000000) < (bound ^ 0x80000000)) {
      this.range = bound;
      this.code = code;
      probs[i] = p + ((2048 - p) >>> 5);
      return 0;
    }
    this.range = (range - bound) | 0;
    this.code = (code - bound) | 0;
    probs[i] = p - (p >>> 5);
    return 1;
  }

  /** `bits` bits, most significant first, through the tree of probabilities at `base`. */
  tree(probs: Uint16Array, base: number, bits: number): number {
    let m = 1;
    for (let i = 0; i < bits; i++) m = (m << 1) | this.bit(probs, base + m);
    return m - (1 << bits);
  }

  /** `bits` bits, least significant first. */
  reverse(probs: Uint16Array, base: number, bits: number): number {
    let m = 1;
    let symbol = 0;
    for (let i = 0; i < bits; i++) {
      const bit = this.bit(probs, base + m);
      m = (m << 1) | bit;
      symbol |= bit << i;
    }
    return symbol;
  }

  /** `bits` bits of even probability. */
  direct(bits: number): number {
    let range = this.range;
    let code = this.code;
    let result = 0;
    for (let i = 0; i < bits; i++) {
      if (range >>> 0 < TOP) {
        range <<= 8;
        code = (code << 8) | this.buf[this.pos++]!;
      }
      range = range >>> 1;
      if ((code ^ 0x80000000) >= (range ^ 0x80000000)) {
        code = (code - range) | 0;
        result = result * 2 + 1;
      } else result *= 2;
    }
    if ((code ^ 0x80000000) >= (range ^ 0x80000000)) throw damaged(`${this.what} is damaged (range coder out of step)`);
    this.range = range;
    this.code = code;
    return result;
  }
}
