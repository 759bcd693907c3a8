/**
 * Method 12, bzip2: read only, by a decoder of zipfs's own (bzip2-bits, -huffman, -block,
 * -output.ts): the runtime has no bzip2, and a decoder is a few hundred lines against a
 * dependency's. Every block's CRC and each stream's combined CRC are checked; concatenated
 * streams (parallel compressors write them) are read one after another; randomised blocks
 * (written only by bzip2 before 0.9.5, 1998) are refused. A changed entry is written as deflate.
 */
import type { Codec } from '../codec-types.ts';
import { BitReader, damaged } from './bzip2-bits.ts';
import { BlockDecoder } from './bzip2-block.ts';
import { growingSink, hex, type OutputSink, streamingSink, writeBlock } from './bzip2-output.ts';

const BLOCK_MAGIC_HIGH = 0x314159;
const BLOCK_MAGIC_LOW = 0x265359;
const END_MAGIC_HIGH = 0x177245;
const END_MAGIC_LOW = 0x385090;
const ONE_PIECE_MAX_BYTES = 16 << 20;

/** Decodes every stream in `input` to `sink`. */
function decodeStreams(input: Iterator<Uint8Array>, sink: OutputSink): void {
  const bits = new BitReader(input);
  let decoder: BlockDecoder | undefined;
  let stream = 0;
  do {
    stream++;
    const signature = bits.read(24);
    if (signature !== 0x425a68) throw damaged(`stream ${stream} does not start with "BZh"`);
    const level = bits.read(8) - 0x30;
    if (level < 1 || level > 9) throw damaged(`stream ${stream} names block size ${level}, not 1 to 9`);
    // One vector serves every stream whose blocks fit it.
    if (!decoder || decoder.maxSize !== level * 100_000) decoder = new BlockDecoder(level * 100_000);
    decodeBlocks(bits, decoder, sink, stream);
    bits.alignToByte();
  } while (!bits.atEnd());
}

function decodeBlocks(bits: BitReader, decoder: BlockDecoder, sink: OutputSink, stream: number): void {
  let combined = 0;
  for (let block = 1; ; block++) {
    const high = bits.read(24);
    const low = bits.read(24);
    const where = `stream ${stream}, block ${block}`;
    if (high === END_MAGIC_HIGH && low === END_MAGIC_LOW) {
      const stored = bits.read32();
      if (stored !== combined >>> 0)
        throw damaged(`stream ${stream}'s combined CRC is ${hex(combined)}, the stream says ${hex(stored)}`);
      return;
    }
    if (high !== BLOCK_MAGIC_HIGH || low !== BLOCK_MAGIC_LOW) throw damaged(`${where} has no block signature`);
    const storedCrc = bits.read32();
    if (bits.read(1))
      throw damaged(
        `${where} is "randomised", a form only bzip2 before 0.9.5 wrote, which zipfs does not read; ` +
          'recompress the entry with a current bzip2 or deflate',
      );
    const origin = bits.read(24);
    try {
      decoder.read(bits);
    } catch (error) {
      bits.checkEnd(); // A fault past the end of the data is truncation, whatever it looked like.
      throw error;
    }
    const crc = writeBlock(
      { tt: decoder.tt, size: decoder.size, counts: decoder.counts, origin, crc: storedCrc, where },
      sink,
    );
    combined = ((combined << 1) | (combined >>> 31)) ^ crc;
  }
}

export const bzip2Codec: Codec = {
  method: 12,
  name: 'bzip2',
  versionNeeded: 46,
  decode(data, declaredSize) {
    // As inflateRaw: the declared size in one piece up to 16 MiB (no copy as it grows), past that grown as it comes.
    const sink = growingSink(declaredSize, Math.max(ONE_PIECE_MAX_BYTES, data.length * 4));
    decodeStreams([data][Symbol.iterator](), sink);
    return sink.buf.subarray(0, sink.pos);
  },
  async decodeStream(input, declaredSize, onOutput) {
    decodeStreams(input[Symbol.iterator](), streamingSink(declaredSize, onOutput));
  },
};
