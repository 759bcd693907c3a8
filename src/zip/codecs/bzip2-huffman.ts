/**
 * One bzip2 Huffman table (a "group"; a block has 2 to 6): code lengths in, a decoder out.
 * Codes are canonical, as bzip2's hbAssignCodes gives them: by length, then by symbol. A symbol
 * whose code is at most LUT_BITS long is found in one look-up of the next LUT_BITS bits (most
 * of them: text's common symbols are short); a longer one by the limit/base/perm walk of the
 * reference decoder (decompress.c), on 20 bits peeked at once.
 */
import { damaged } from './bzip2-bits.ts';

export const LUT_BITS = 10;
export const MAX_CODE_LENGTH = 20;
export const MAX_ALPHABET = 258;

export class HuffmanTable {
  /** (symbol << 5) | length for codes of at most LUT_BITS bits; 0 for a prefix of a longer code (or of none). */
  readonly lut = new Uint16Array(1 << LUT_BITS);
  readonly lengths = new Uint8Array(MAX_ALPHABET);
  private readonly limit = new Int32Array(MAX_CODE_LENGTH + 2);
  private readonly base = new Int32Array(MAX_CODE_LENGTH + 2);
  private readonly perm = new Uint16Array(MAX_ALPHABET);
  private minLength = 0;
  private maxLength = 0;
  private symbols = 0;

  /** Builds the decoder from lengths[0 .. alphabetSize). Throws when the lengths describe no valid code. */
  build(alphabetSize: number): void {
    const { lengths, limit, base, perm, lut } = this;
    let minLength = MAX_CODE_LENGTH;
    let maxLength = 0;
    for (let i = 0; i < alphabetSize; i++) {
      const length = lengths[i]!;
      if (length > maxLength) maxLength = length;
      if (length < minLength) minLength = length;
    }
    this.minLength = minLength;
    this.maxLength = maxLength;
    this.symbols = alphabetSize;
    lut.fill(0);
    base.fill(0);
    limit.fill(-1);
    let at = 0;
    let code = 0;
    for (let length = minLength; length <= maxLength; length++) {
      for (let symbol = 0; symbol < alphabetSize; symbol++) {
        if (lengths[symbol] !== length) continue;
        if (code >= 1 << length) throw damaged('a Huffman table has more codes than its lengths allow');
        perm[at++] = symbol;
        if (length <= LUT_BITS) {
          const span = 1 << (LUT_BITS - length);
          lut.fill((symbol << 5) | length, code * span, code * span + span);
        }
        code++;
      }
      code <<= 1;
    }
    // The reference decoder's tables: limit[n] is the largest n-bit code, base[n] maps one to its index in perm.
    for (let i = 0; i < alphabetSize; i++) base[lengths[i]! + 1]!++;
    for (let i = 1; i < base.length; i++) base[i]! += base[i - 1]!;
    let vec = 0;
    for (let length = minLength; length <= maxLength; length++) {
      vec += base[length + 1]! - base[length]!;
      limit[length] = vec - 1;
      vec <<= 1;
    }
    for (let length = minLength + 1; length <= maxLength; length++)
      base[length] = ((limit[length - 1]! + 1) << 1) - base[length]!;
  }

  /**
   * The symbol whose code starts `peek` (the next 20 bits), as (symbol << 5) | length, when the
   * look-up table did not have it.
   */
  slow(peek: number): number {
    const { limit, base, perm } = this;
    for (let length = this.minLength; length <= this.maxLength; length++) {
      const code = peek >>> (MAX_CODE_LENGTH - length);
      if (code <= limit[length]!) {
        const index = code - base[length]!;
        if (index < 0 || index >= this.symbols) break;
        return (perm[index]! << 5) | length;
      }
    }
    throw damaged('a Huffman code matches no symbol');
  }
}
