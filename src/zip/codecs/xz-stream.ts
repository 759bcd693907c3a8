/**
 * The xz container (xz file format 1.1.0): streams of a header, blocks, an index and a footer,
 * with zero padding between streams. Each block's header CRC32 and its data's check (CRC32,
 * CRC64 or SHA-256) are verified, as are the index (its records against the blocks read, its
 * CRC32) and the footer (its CRC32, the index size, the flags). zipfs decodes the LZMA2 filter
 * alone: a block that also runs a branch converter (BCJ) or delta is refused, naming the filter.
 */
import { crc32 } from '../codec.ts';
import { damaged } from './lzma-input.ts';
import type { RangeDecoder } from './range-decoder.ts';
import { Lzma2Decoder, lzma2Dictionary } from './lzma2.ts';
import { MAX_DICTIONARY, type Window } from './lzma-window.ts';
import { type BlockCheck, blockCheck } from './xz-check.ts';

const MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const LZMA2 = 0x21;
const FILTER_NAMES: Record<number, string> = {
  3: 'delta',
  4: 'x86 BCJ',
  5: 'PowerPC BCJ',
  6: 'IA-64 BCJ',
  7: 'ARM BCJ',
  8: 'ARM-Thumb BCJ',
  9: 'SPARC BCJ',
  10: 'ARM64 BCJ',
  11: 'RISC-V BCJ',
};

function fault(reason: string): Error {
  return damaged(`xz data is damaged (${reason})`);
}

/** How the xz reader gets its window: made when the first block names its dictionary size. */
export interface XzOutput {
  /** A window for a dictionary of `dictionary` bytes: the current one if it is large enough. */
  window(dictionary: number): Window;
  /** The check the window's output goes to from now on. */
  checkWith(check: BlockCheck): void;
}

/** A variable-length integer from a header's bytes (1-9 bytes, 7 bits each). */
function vli(next: () => number): number {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = next();
    value += (byte & 0x7f) * 2 ** (7 * i);
    if (byte < 0x80) {
      if (byte === 0 && i > 0) break;
      return value;
    }
  }
  throw fault('a bad variable-length integer');
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16)) + bytes[at + 3]! * 0x1000000;
}

export class XzReader {
  constructor(
    private readonly rc: RangeDecoder,
    private readonly output: XzOutput,
    /** The entry's declared size: more output is an overflow. */
    private readonly limit: number,
  ) {}

  /** Reads every stream to the end of the input. */
  read(): void {
    let first = this.rc.byte();
    for (;;) {
      this.stream(first);
      let zeros = 0;
      for (;;) {
        if (this.rc.atEnd()) {
          if (zeros % 4 !== 0) throw fault('stream padding is not a multiple of 4 bytes');
          return;
        }
        first = this.rc.byte();
        if (first !== 0) break;
        zeros++;
      }
      if (zeros % 4 !== 0) throw fault('stream padding is not a multiple of 4 bytes');
    }
  }

  private stream(first: number): void {
    const header = this.rc.bytes(11);
    if (first !== MAGIC[0] || MAGIC.some((byte, i) => i > 0 && header[i - 1] !== byte))
      throw damaged('xz data does not start with the xz magic bytes');
    const flags = header.subarray(5, 7);
    if (crc32(flags) !== u32(header, 7)) throw fault('the stream header CRC32 differs');
    if (flags[0] !== 0 || flags[1]! > 15) throw damaged('xz data uses stream flags zipfs does not know');
    const check = blockCheck(flags[1]!);
    const blocks: number[] = [];
    for (;;) {
      const size = this.rc.byte();
      if (size === 0) break;
      blocks.push(...this.block(size, check));
    }
    const indexSize = this.index(blocks);
    const footer = this.rc.bytes(12);
    if (crc32(footer.subarray(4, 10)) !== u32(footer, 0)) throw fault('the stream footer CRC32 differs');
    if ((u32(footer, 4) + 1) * 4 !== indexSize) throw fault('the footer and the index differ in size');
    if (footer[8] !== flags[0] || footer[9] !== flags[1]) throw fault('the footer and header flags differ');
    if (footer[10] !== 0x59 || footer[11] !== 0x5a) throw fault('the stream footer magic bytes are wrong');
  }

  /** One block, its header's first byte read; its unpadded and uncompressed sizes. */
  private block(sizeByte: number, check: BlockCheck): [number, number] {
    const { rc } = this;
    const headerSize = (sizeByte + 1) * 4;
    const header = new Uint8Array(headerSize);
    header[0] = sizeByte;
    header.set(rc.bytes(headerSize - 1), 1);
    if (crc32(header.subarray(0, headerSize - 4)) !== u32(header, headerSize - 4))
      throw fault('a block header CRC32 differs');
    const flags = header[1]!;
    if (flags & 0x3c) throw damaged('xz data uses block flags zipfs does not know');
    let at = 2;
    const next = () => {
      if (at >= headerSize - 4) throw fault('a block header is cut off');
      return header[at++]!;
    };
    const packedSize = flags & 0x40 ? vli(next) : undefined;
    const unpackedSize = flags & 0x80 ? vli(next) : undefined;
    let dictionary = -1;
    for (let i = 0, n = (flags & 3) + 1; i < n; i++) {
      const id = vli(next);
      const props = Array.from({ length: vli(next) }, next);
      if (id !== LZMA2) {
        const name = FILTER_NAMES[id] ?? `unknown filter 0x${id.toString(16)}`;
        throw damaged(
          `xz data uses the ${name} filter, which zipfs does not decode (it reads LZMA2 alone); ` +
            're-create the entry with plain xz or another method',
        );
      }
      if (i !== n - 1 || props.length !== 1) throw fault('LZMA2 is not the last filter');
      dictionary = lzma2Dictionary(props[0]!) ?? -1;
      if (dictionary < 0) throw fault('invalid LZMA2 dictionary size');
    }
    while (at < headerSize - 4) if (header[at++] !== 0) throw fault('a block header has non-zero padding');
    if (dictionary > MAX_DICTIONARY)
      throw damaged(
        `xz data declares a ${Math.round(dictionary / 2 ** 20)} MiB dictionary, more than the ` +
          `${MAX_DICTIONARY / 2 ** 20} MiB zipfs accepts: refused as a likely zip bomb`,
      );
    const window = this.output.window(dictionary);
    this.output.checkWith(check);
    const start = rc.offset;
    const before = window.total;
    new Lzma2Decoder(rc, window, this.limit).decode();
    window.emit();
    const packed = rc.offset - start;
    const unpacked = window.total - before;
    if (
      (packedSize !== undefined && packedSize !== packed) ||
      (unpackedSize !== undefined && unpackedSize !== unpacked)
    )
      throw fault('a block is not the size its header says');
    for (let pad = packed; pad % 4 !== 0; pad++) if (rc.byte() !== 0) throw fault('block padding is not zero');
    const expected = check.digest();
    const stored = rc.bytes(check.size);
    if (expected.some((byte, i) => stored[i] !== byte)) throw fault('the integrity check of a block differs');
    return [headerSize + packed + check.size, unpacked];
  }

  /** The index, its indicator byte read: checked against the blocks; its size in bytes. */
  private index(blocks: number[]): number {
    const bytes = [0];
    const next = () => {
      const byte = this.rc.byte();
      bytes.push(byte);
      return byte;
    };
    if (vli(next) * 2 !== blocks.length) throw fault('the index and the blocks differ');
    for (let i = 0; i < blocks.length; i++) if (vli(next) !== blocks[i]) throw fault('the index and the blocks differ');
    while (bytes.length % 4 !== 0) if (next() !== 0) throw fault('index padding is not zero');
    const crc = this.rc.bytes(4);
    if (crc32(Uint8Array.from(bytes)) !== u32(crc, 0)) throw fault('the index CRC32 differs');
    return bytes.length + 4;
  }
}
