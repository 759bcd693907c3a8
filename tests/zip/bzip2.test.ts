/**
 * The bzip2 decoder (method 12, src/zip/codecs/bzip2.ts) against streams written by the real
 * `bzip2` program and Python's bz2 module: round trips whole and in pieces, several blocks and
 * concatenated streams, and every way the data can lie: a flipped bit, a cut, a declared size
 * too small, a block larger than its stream's block size, the obsolete randomised form.
 */
import { describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import { InflateError } from '../../src/zip/codec.ts';
import { codecFor } from '../../src/zip/codec-registry.ts';
import { bzip2Codec } from '../../src/zip/codecs/bzip2.ts';
import { needs } from '../helpers/tools.ts';

function bzip2(data: Uint8Array, level = 9): Buffer {
  return execFileSync('bzip2', [`-${level}`, '-c'], { input: data, maxBuffer: 64 << 20 });
}

function pythonBz2(data: Uint8Array, level = 9): Buffer {
  const script = `import bz2,sys; sys.stdout.buffer.write(bz2.compress(sys.stdin.buffer.read(), ${level}))`;
  return execFileSync('python3', ['-c', script], { input: data, maxBuffer: 64 << 20 });
}

/** Deterministic pseudo-random bytes (xorshift), so a failure repeats. */
function noise(length: number, seed = 7): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

function text(length: number): Uint8Array {
  const words = ['zip', 'bzip2', 'block', 'the', 'entry', 'of', 'Huffman', 'run', 'stream', 'a'];
  const r = noise(length);
  let s = '';
  for (let i = 0; s.length < length; i++) s += `${words[r[i]! % words.length]}${r[i]! % 13 === 0 ? '\n' : ' '}`;
  return Buffer.from(s.slice(0, length));
}

/** Runs of every length around RLE1's edges (4, 5, 255, 259, 260) and a long one RUNA/RUNB must count. */
function runs(): Uint8Array {
  const parts: Buffer[] = [];
  for (const length of [1, 2, 3, 4, 5, 6, 254, 255, 256, 258, 259, 260, 261, 1000, 100_000])
    parts.push(Buffer.alloc(length, length & 0xff), Buffer.from('xy'));
  return Buffer.concat(parts);
}

async function streamed(data: Uint8Array, declaredSize: number, pieceSize: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  const pieces = function* () {
    for (let at = 0; at < data.length; at += pieceSize) yield data.subarray(at, at + pieceSize);
  };
  await bzip2Codec.decodeStream(pieces(), declaredSize, (chunk) => out.push(chunk));
  return out;
}

function decodeError(data: Uint8Array, declaredSize: number): InflateError | undefined {
  try {
    bzip2Codec.decode(data, declaredSize);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(InflateError);
    return error as InflateError;
  }
}

const CASES: [string, () => Uint8Array][] = [
  ['empty', () => new Uint8Array(0)],
  ['one byte', () => Uint8Array.of(0x41)],
  ['runs (RLE1 and RUNA/RUNB)', runs],
  ['random bytes', () => noise(200_000)],
  ['text', () => text(300_000)],
];

describe.skipIf(needs('bzip2', 'python3').skip)(`bzip2 round trips${needs('bzip2', 'python3').why}`, () => {
  it('is the registered codec of method 12 (loaded when first used: codecs/built-in.ts)', () => {
    const data = Buffer.from('registered\n'.repeat(100));
    expect(codecFor(12)?.name).toBe('bzip2');
    expect(Buffer.from(codecFor(12)!.decode(bzip2(data), data.length)).equals(data)).toBe(true);
  });

  for (const [name, make] of CASES) {
    it(`decodes ${name} from bzip2 and Python's bz2, whole and in pieces`, async () => {
      const data = make();
      for (const packed of [bzip2(data), bzip2(data, 1), pythonBz2(data, 5)]) {
        expect(Buffer.from(bzip2Codec.decode(packed, data.length)).equals(data)).toBe(true);
        for (const pieceSize of [1, 7, 4096]) {
          if (pieceSize === 1 && packed.length > 5000) continue;
          const out = Buffer.concat(await streamed(packed, data.length, pieceSize));
          expect(out.equals(data)).toBe(true);
        }
      }
    });
  }

  it('decodes several blocks, handing each on as it is decoded', async () => {
    const data = Buffer.concat([text(1_000_000), noise(500_000, 3), runs()]);
    const packed = bzip2(data, 9); // 900k blocks: two of them
    expect(Buffer.from(bzip2Codec.decode(packed, data.length)).equals(data)).toBe(true);
    const small = bzip2(data, 1); // 100k blocks: 16 or more
    const pieces = await streamed(small, data.length, 65_536);
    expect(Buffer.concat(pieces).equals(data)).toBe(true);
    expect(pieces.length).toBeGreaterThanOrEqual(16);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(1 << 20);
  });

  it('decodes concatenated streams (a parallel compressor writes them), an empty one among them', async () => {
    const a = text(150_000);
    const b = noise(1000);
    const packed = Buffer.concat([bzip2(a, 1), pythonBz2(new Uint8Array(0)), pythonBz2(b, 2)]);
    const whole = Buffer.concat([a, b]);
    expect(Buffer.from(bzip2Codec.decode(packed, whole.length)).equals(whole)).toBe(true);
    expect(Buffer.concat(await streamed(packed, whole.length, 333)).equals(whole)).toBe(true);
  });
});

describe.skipIf(needs('bzip2').skip)(`damaged bzip2 data${needs('bzip2').why}`, () => {
  const data = text(3000);
  const packed = bzip2(data);

  it('refuses a block whose CRC differs, and a stream whose combined CRC does', () => {
    const blockCrc = Buffer.from(packed);
    blockCrc[12]! ^= 0x10; // the block's CRC: after "BZh9" and the 48-bit block signature
    expect(decodeError(blockCrc, data.length)?.message).toMatch(/corrupt bzip2 data \(stream 1, block 1's CRC is/);
    // One block: the combined CRC is the block's own, stored in the stream's last 4-5 bytes (not byte aligned).
    const combined = Buffer.from(packed);
    combined[combined.length - 3]! ^= 0x01;
    expect(decodeError(combined, data.length)).toMatchObject({ overflow: false });
    expect(decodeError(combined, data.length)?.message).toContain("stream 1's combined CRC");
  });

  it('never returns other bytes: any one bit flipped is refused as damaged (never a bomb), or changes nothing', () => {
    const small = bzip2(Buffer.from('hello hello hello bzip2, aaaaaaaaaaaa bbbbb\n'));
    const expected = Buffer.from('hello hello hello bzip2, aaaaaaaaaaaa bbbbb\n');
    let refused = 0;
    for (let bit = 0; bit < small.length * 8; bit++) {
      const flipped = Buffer.from(small);
      flipped[bit >> 3]! ^= 0x80 >> (bit & 7);
      try {
        expect(Buffer.from(bzip2Codec.decode(flipped, expected.length)).equals(expected)).toBe(true);
      } catch (error) {
        expect(error).toBeInstanceOf(InflateError);
        expect((error as InflateError).overflow).toBe(false);
        refused++;
      }
    }
    // What may flip unnoticed (13 bits here): the block size ('9' to '8' or '1': the block still fits), a
    // table no selector picks, and the padding after the combined CRC.
    expect(refused).toBeGreaterThanOrEqual(small.length * 8 - 16);
  });

  it('refuses every cut of the stream as truncated, whole and streamed', async () => {
    for (let length = 0; length < packed.length; length++) {
      const cut = packed.subarray(0, length);
      expect(decodeError(cut, data.length)?.message).toContain('truncated');
      const rejected = await streamed(cut, data.length, 100).then(
        () => undefined,
        (error) => error,
      );
      expect(rejected).toBeInstanceOf(InflateError);
      expect(rejected.message).toContain('truncated');
    }
  });

  it('refuses bytes after the last stream that start no stream', () => {
    expect(decodeError(Buffer.concat([packed, Buffer.from('junk')]), data.length)?.message).toContain(
      'stream 2 does not start with "BZh"',
    );
  });

  it('stops at the declared size with an overflow, whole and streamed, memory bounded by it', async () => {
    expect(decodeError(packed, data.length - 1)).toMatchObject({ overflow: true });
    const bomb = bzip2(Buffer.alloc(20 << 20), 9); // 20 MiB of zeros in 50-odd bytes
    expect(bomb.length).toBeLessThan(200);
    expect(decodeError(bomb, 1000)).toMatchObject({ overflow: true });
    expect(decodeError(bomb, 1000)?.message).toContain('more than the declared 1000 bytes');
    let handed = 0;
    const rejected = await bzip2Codec
      .decodeStream([bomb], 1000, (chunk) => {
        handed += chunk.length;
      })
      .then(
        () => undefined,
        (error) => error,
      );
    expect(rejected).toMatchObject({ overflow: true });
    expect(handed).toBeLessThanOrEqual(1000);
  });

  it('refuses a block larger than its stream says blocks are, before growing past that size', () => {
    const big = bzip2(noise(200_000), 9); // one 200,000-byte block
    const lying = Buffer.from(big);
    lying[3] = 0x31; // "BZh1": blocks of at most 100,000 bytes
    expect(decodeError(lying, 200_000)?.message).toContain("a block holds more than its stream's 100000 bytes");
  });

  it('refuses the obsolete randomised form with a message that says what to do', () => {
    const randomised = Buffer.from(packed);
    randomised[14]! |= 0x80; // the bit after the block's CRC
    const message = decodeError(randomised, data.length)?.message;
    expect(message).toContain('randomised');
    expect(message).toContain('recompress');
  });
});
