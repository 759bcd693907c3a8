/**
 * One bzip2 block's symbols, read into the inverse BWT's vector: the symbol map, the Huffman
 * tables and their selectors, then the Huffman-coded MTF/RLE2 symbols (RUNA and RUNB spell a
 * run of the front byte in bijective base 2; any other symbol moves a byte to the front). The
 * bytes land in the low 8 bits of `tt`, which then links them (bzip2-output.ts walks it).
 * Sizes are checked before anything grows: a block holds at most its stream's block size
 * (100k to 900k bytes), so a lying stream costs at most 3.6 MB here.
 */
import { type BitReader, damaged } from './bzip2-bits.ts';
import { HuffmanTable, LUT_BITS, MAX_CODE_LENGTH } from './bzip2-huffman.ts';

const GROUP_SIZE = 50;
const MAX_GROUPS = 6;
/** As bzip2 1.0.8: more selectors may be written, only this many are kept (CVE-2019-12900). */
const MAX_SELECTORS = 18002;
const RUN_WEIGHT_LIMIT = 2 * 1024 * 1024;
const FIRST_VECTOR = 1 << 16;

/** The reusable state of one stream's blocks: tables and the vector, grown up to the block size. */
export class BlockDecoder {
  tt: Uint32Array;
  /** How many bytes the block holds, once read. */
  size = 0;
  readonly counts = new Int32Array(256);
  private readonly tables = Array.from({ length: MAX_GROUPS }, () => new HuffmanTable());
  private readonly selectors = new Uint8Array(MAX_SELECTORS);
  private readonly symbolToByte = new Uint8Array(256);
  private readonly mtf = new Uint8Array(256);

  constructor(readonly maxSize: number) {
    this.tt = new Uint32Array(Math.min(maxSize, FIRST_VECTOR));
  }

  /** Reads one block's symbols (after its header) into tt and counts. */
  read(bits: BitReader): void {
    const byteCount = this.readSymbolMap(bits);
    const alphabetSize = byteCount + 2;
    const groups = bits.read(3);
    if (groups < 2 || groups > MAX_GROUPS) throw damaged(`a block has ${groups} Huffman tables, not 2 to 6`);
    const selectorCount = this.readSelectors(bits, groups);
    for (let g = 0; g < groups; g++) this.readTable(bits, this.tables[g]!, alphabetSize);
    this.readSymbols(bits, alphabetSize, selectorCount);
  }

  /** The bytes the block uses, in 16 ranges of 16; returns how many. */
  private readSymbolMap(bits: BitReader): number {
    const ranges = bits.read(16);
    let used = 0;
    for (let range = 0; range < 16; range++) {
      if (!(ranges & (0x8000 >>> range))) continue;
      const set = bits.read(16);
      for (let i = 0; i < 16; i++) if (set & (0x8000 >>> i)) this.symbolToByte[used++] = range * 16 + i;
    }
    if (used === 0) throw damaged('a block uses no byte values');
    return used;
  }

  private readSelectors(bits: BitReader, groups: number): number {
    const count = bits.read(15);
    if (count < 1) throw damaged('a block has no Huffman table selectors');
    const { selectors } = this;
    const order = [0, 1, 2, 3, 4, 5];
    for (let i = 0; i < count; i++) {
      let j = 0;
      while (bits.read(1)) if (++j >= groups) throw damaged('a selector names a Huffman table the block lacks');
      // Move-to-front decoded as read.
      const table = order[j]!;
      for (let k = j; k > 0; k--) order[k] = order[k - 1]!;
      order[0] = table;
      if (i < MAX_SELECTORS) selectors[i] = table;
    }
    return Math.min(count, MAX_SELECTORS);
  }

  private readTable(bits: BitReader, table: HuffmanTable, alphabetSize: number): void {
    let length = bits.read(5);
    for (let symbol = 0; symbol < alphabetSize; symbol++) {
      for (;;) {
        if (length < 1 || length > MAX_CODE_LENGTH) throw damaged(`a Huffman code length is ${length}`);
        if (!bits.read(1)) break;
        length += bits.read(1) ? -1 : 1;
      }
      table.lengths[symbol] = length;
    }
    table.build(alphabetSize);
  }

  /** The hot loop: Huffman symbols to MTF/RLE2 to bytes in tt. Reads the reader's fields directly. */
  private readSymbols(bits: BitReader, alphabetSize: number, selectorCount: number): void {
    const { counts, symbolToByte, mtf, selectors, tables, maxSize } = this;
    const endOfBlock = alphabetSize - 1;
    counts.fill(0);
    for (let i = 0; i < 256; i++) mtf[i] = i;
    let tt = this.tt;
    let size = 0;
    let group = -1;
    let left = 0;
    let table = tables[0]!;
    let lut = table.lut;
    let runLength = 0;
    let runWeight = 1;
    for (;;) {
      if (left === 0) {
        if (++group >= selectorCount) throw damaged('a block has more symbols than selectors');
        table = tables[selectors[group]!]!;
        lut = table.lut;
        left = GROUP_SIZE;
      }
      left--;
      if (bits.count < MAX_CODE_LENGTH) bits.fill();
      const peek = (bits.bits >>> (bits.count - MAX_CODE_LENGTH)) & 0xfffff;
      let entry = lut[peek >>> (MAX_CODE_LENGTH - LUT_BITS)]!;
      if (entry === 0) entry = table.slow(peek);
      bits.count -= entry & 31;
      const symbol = entry >>> 5;
      if (symbol <= 1) {
        // RUNA adds the weight, RUNB twice it; the weight doubles.
        if (runWeight >= RUN_WEIGHT_LIMIT) throw damaged('a run is longer than any block');
        runLength += runWeight << symbol;
        runWeight <<= 1;
        continue;
      }
      if (runLength > 0) {
        if (size + runLength > tt.length) tt = this.grow(size + runLength);
        const byte = symbolToByte[mtf[0]!]!;
        counts[byte]! += runLength;
        tt.fill(byte, size, size + runLength);
        size += runLength;
        runLength = 0;
        runWeight = 1;
      }
      if (symbol === endOfBlock) break;
      if (size >= tt.length) tt = this.grow(size + 1);
      let index = symbol - 1;
      const front = mtf[index]!;
      for (; index > 0; index--) mtf[index] = mtf[index - 1]!;
      mtf[0] = front;
      const byte = symbolToByte[front]!;
      counts[byte]!++;
      tt[size++] = byte;
    }
    if (size > maxSize) throw damaged(`a block holds more than its stream's ${maxSize} bytes`);
    bits.checkEnd();
    this.size = size;
  }

  /** The vector grown to hold `needed` bytes, doubling, never past the block size. */
  private grow(needed: number): Uint32Array {
    if (needed > this.maxSize) throw damaged(`a block holds more than its stream's ${this.maxSize} bytes`);
    const grown = new Uint32Array(Math.min(this.maxSize, Math.max(needed, this.tt.length * 2)));
    grown.set(this.tt);
    this.tt = grown;
    return grown;
  }
}
