/**
 * The LZMA decoder (Igor Pavlov's LZMA, as LZMA SDK's LzmaDec.c and xz-embedded describe it):
 * a range decoder over adaptive bit probabilities, and the literal/match/rep state machine over
 * the dictionary window (lzma-window.ts). Shared by method 14 (lzma.ts) and LZMA2 (lzma2.ts).
 * Written for speed in plain JS: one Uint16Array of probabilities, no allocation per symbol, the
 * bounds of the input checked once per symbol (lzma-input.ts).
 */
import { damaged } from './lzma-input.ts';
import { type RangeDecoder, TOP } from './range-decoder.ts';
import type { Window } from './lzma-window.ts';

// Where each model's probabilities sit in the one array.
const IS_MATCH = 0;
const IS_REP = 192;
const IS_REP_G0 = 204;
const IS_REP_G1 = 216;
const IS_REP_G2 = 228;
const IS_REP0_LONG = 240;
const POS_SLOT = 432;
const SPEC_POS = 688;
const ALIGN = 803;
const LEN = 819;
const REP_LEN = 1333;
const LITERAL = 1847;
const END_MARKER = 0xffffffff;

/** lc, lp, pb from LZMA's properties byte, or undefined when it is out of range. */
export function lzmaProperties(byte: number): { lc: number; lp: number; pb: number } | undefined {
  if (byte >= 225) return undefined;
  return { lc: byte % 9, lp: Math.floor(byte / 9) % 5, pb: Math.floor(byte / 45) };
}

export class LzmaDecoder {
  private probs = new Uint16Array(0);
  private lc = 0;
  private lpMask = 0;
  private pbMask = 0;
  private state = 0;
  private rep0 = 0;
  private rep1 = 0;
  private rep2 = 0;
  private rep3 = 0;
  /** Bytes of the last match not yet written (the output limit fell inside it). */
  remainLen = 0;

  constructor(
    readonly rc: RangeDecoder,
    readonly window: Window,
  ) {}

  /** New lc/lp/pb, and a state reset. */
  setProperties(props: { lc: number; lp: number; pb: number }): void {
    this.lc = props.lc;
    this.lpMask = (1 << props.lp) - 1;
    this.pbMask = (1 << props.pb) - 1;
    const size = LITERAL + (0x300 << (props.lc + props.lp));
    if (this.probs.length !== size) this.probs = new Uint16Array(size);
    this.resetState();
  }

  resetState(): void {
    this.probs.fill(1024);
    this.state = 0;
    this.rep0 = this.rep1 = this.rep2 = this.rep3 = 0;
    this.remainLen = 0;
  }

  /** Decodes until the window holds `limit` bytes in all, or the end marker; true at the marker. */
  decode(limit: number): boolean {
    const window = this.window;
    while (window.total < limit) {
      if (window.pos === window.size) window.emit();
      if (this.run(window.pos + Math.min(limit - window.total, window.size - window.pos))) return true;
    }
    return false;
  }

  /** Decodes into the window up to index `stop` of its buffer; true at the end marker. */
  private run(stop: number): boolean {
    const { rc, probs, window, lc, lpMask, pbMask } = this;
    const out = window.buf;
    const size = window.size;
    const start = window.pos;
    // The position since the dictionary's start of the byte at `op` is rel0 + op.
    const rel0 = window.total - window.dictStart - start;
    let op = start;
    let { state, rep0, rep1, rep2, rep3 } = this;
    let len = this.remainLen;
    let marker = false;
    for (;;) {
      if (len > 0) {
        const n = Math.min(len, stop - op);
        len -= n;
        let src = op - rep0 - 1;
        if (src < 0) src += size;
        if (src + n > size) {
          for (const end = op + n; op < end; ) {
            out[op++] = out[src++]!;
            if (src === size) src = 0;
          }
        } else if (n > 12 && rep0 >= n) {
          out.copyWithin(op, src, src + n);
          op += n;
        } else for (const end = op + n; op < end; ) out[op++] = out[src++]!;
      }
      if (op >= stop) break;
      if (rc.pos > rc.safe) rc.refill();
      const rel = rel0 + op;
      const posState = rel & pbMask;
      const s4 = (state << 4) + posState;
      // The match bit and a literal's 8 bits, the hottest path, with the range coder in locals.
      const ib = rc.buf;
      let ip = rc.pos;
      let range = rc.range;
      let code = rc.code;
      if (range >>> 0 < TOP) {
        range <<= 8;
        code = (code << 8) | ib[ip++]!;
      }
      let p = probs[IS_MATCH + s4]!;
      let bound = Math.imul(range >>> 11, p);
      if ((code ^ 0x80000000) >= (bound ^ 0x80000000)) {
        rc.range = (range - bound) | 0;
        rc.code = (code - bound) | 0;
        rc.pos = ip;
        probs[IS_MATCH + s4] = p - (p >>> 5);
      } else {
        range = bound;
        probs[IS_MATCH + s4] = p + ((2048 - p) >>> 5);
        const prev = rel === 0 ? 0 : op > 0 ? out[op - 1]! : out[size - 1]!;
        const lit = LITERAL + 0x300 * (((rel & lpMask) << lc) + (prev >> (8 - lc)));
        let symbol = 1;
        // After a match the byte the last match would go on with steers the model (a "matched literal").
        let matchByte = 0;
        let offs = 0; // 0x100 while the bits decoded so far agree with the match byte's (LzmaDec's trick)
        if (state >= 7) {
          let src = op - rep0 - 1;
          if (src < 0) src += size;
          matchByte = out[src]!;
          offs = 0x100;
        }
        do {
          matchByte <<= 1;
          const agreeing = offs;
          offs &= matchByte;
          const i = lit + offs + agreeing + symbol;
          if (range >>> 0 < TOP) {
            range <<= 8;
            code = (code << 8) | ib[ip++]!;
          }
          p = probs[i]!;
          bound = Math.imul(range >>> 11, p);
          if ((code ^ 0x80000000) < (bound ^ 0x80000000)) {
            range = bound;
            probs[i] = p + ((2048 - p) >>> 5);
            symbol <<= 1;
            offs ^= agreeing;
          } else {
            range = (range - bound) | 0;
            code = (code - bound) | 0;
            probs[i] = p - (p >>> 5);
            symbol = (symbol << 1) | 1;
          }
        } while (symbol < 0x100);
        rc.range = range;
        rc.code = code;
        rc.pos = ip;
        out[op++] = symbol;
        state = state < 4 ? 0 : state < 10 ? state - 3 : state - 6;
        continue;
      }
      if (rc.bit(probs, IS_REP + state) === 0) {
        rep3 = rep2;
        rep2 = rep1;
        rep1 = rep0;
        len = this.length(LEN, posState);
        state = state < 7 ? 7 : 10;
        rep0 = this.distance(len);
        if (rep0 === END_MARKER) {
          marker = true;
          len = 0;
          break;
        }
      } else {
        if (rc.bit(probs, IS_REP_G0 + state) === 0) {
          if (rc.bit(probs, IS_REP0_LONG + s4) === 0) {
            if (rel === 0) throw damaged(`${rc.what} is damaged (a match before any data)`);
            state = state < 7 ? 9 : 11;
            let src = op - rep0 - 1;
            if (src < 0) src += size;
            out[op++] = out[src]!;
            continue;
          }
        } else {
          let dist: number;
          if (rc.bit(probs, IS_REP_G1 + state) === 0) dist = rep1;
          else {
            if (rc.bit(probs, IS_REP_G2 + state) === 0) dist = rep2;
            else {
              dist = rep3;
              rep3 = rep2;
            }
            rep2 = rep1;
          }
          rep1 = rep0;
          rep0 = dist;
        }
        len = this.length(REP_LEN, posState);
        state = state < 7 ? 8 : 11;
      }
      if (rep0 >= rel || rep0 >= size) throw damaged(`${rc.what} is damaged (a match reaches before the data)`);
      len += 2;
    }
    this.state = state;
    this.rep0 = rep0;
    this.rep1 = rep1;
    this.rep2 = rep2;
    this.rep3 = rep3;
    this.remainLen = len;
    window.total += op - start;
    window.pos = op;
    if (rc.pos > rc.end) throw rc.cutOff();
    return marker;
  }

  /** A match length less 2 (0-271), from the length model at `base`. */
  private length(base: number, posState: number): number {
    const { rc, probs } = this;
    if (rc.bit(probs, base) === 0) return rc.tree(probs, base + 2 + (posState << 3), 3);
    if (rc.bit(probs, base + 1) === 0) return 8 + rc.tree(probs, base + 130 + (posState << 3), 3);
    return 16 + rc.tree(probs, base + 258, 8);
  }

  /** A match distance less 1, for a match of length `len` + 2 (END_MARKER: the end marker). */
  private distance(len: number): number {
    const { rc, probs } = this;
    const slot = rc.tree(probs, POS_SLOT + ((len < 3 ? len : 3) << 6), 6);
    if (slot < 4) return slot;
    const direct = (slot >>> 1) - 1;
    // A shift while it fits an int32 (slots 62 and 63 reach 2^31: a multiplication keeps them unsigned).
    const dist = direct < 30 ? (2 | (slot & 1)) << direct : (2 | (slot & 1)) * 2 ** direct;
    if (slot < 14) return dist + rc.reverse(probs, SPEC_POS + dist - slot, direct);
    return dist + rc.direct(direct - 4) * 16 + rc.reverse(probs, ALIGN, 4);
  }
}
