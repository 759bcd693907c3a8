/**
 * zipfs's own LZMA (method 14) and xz (method 95) decoders, on streams written by real encoders:
 * the xz and lzma programs, Python's lzma module (liblzma) and 7-Zip's zip writer. Whole and
 * streamed (in pieces as small as one byte, through a ring smaller than the output), with lying
 * sizes, damaged and cut-off data, an absurd dictionary and filters zipfs does not decode.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InflateError } from '../../src/zip/codec.ts';
import { lzmaCodec } from '../../src/zip/codecs/lzma.ts';
import { xzCodec } from '../../src/zip/codecs/xz.ts';
import type { Codec } from '../../src/zip/codec-types.ts';
import { needs } from '../helpers/tools.ts';

/** Folders the tests made, removed once they have run. */
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

const tools = needs('xz', 'lzma', 'python3');

/** Text that compresses as source code does: repeats near and far, and some noise. */
function text(bytes: number, seed = 1): Buffer {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'return', 'const', 'function', '{', '}', '\n', '  '];
  const parts: string[] = [];
  let state = seed;
  let length = 0;
  while (length < bytes) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    const word = state % 13 === 0 ? `x${state.toString(36)}` : words[state % words.length]!;
    parts.push(word, ' ');
    length += word.length + 1;
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

function run(command: string, args: string[], input: Uint8Array): Buffer {
  return execFileSync(command, args, { input, maxBuffer: 1 << 28 });
}

/** Python's lzma module compressing stdin: `expression` is the call, with `data` the input. */
function python(expression: string, input: Uint8Array): Buffer {
  const script = `import lzma, sys\ndata = sys.stdin.buffer.read()\nsys.stdout.buffer.write(${expression})`;
  return run('python3', ['-c', script], input);
}

/** Method 14's framing around an .lzma (LZMA_Alone) file: version, properties size, properties, then the stream. */
function zipLzmaFromAlone(alone: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([9, 20, 5, 0]), alone.subarray(0, 5), alone.subarray(13)]);
}

function decodeWhole(codec: Codec, data: Uint8Array, size: number): Buffer {
  return Buffer.from(codec.decode(data, size));
}

async function decodeStreamed(codec: Codec, data: Uint8Array, size: number, piece = 4099): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < data.length; at += piece) pieces.push(data.subarray(at, at + piece));
  const out: Uint8Array[] = [];
  await codec.decodeStream(pieces, size, (chunk) => out.push(chunk));
  return Buffer.concat(out);
}

/** The error decoding throws (whole or streamed), or undefined. */
async function failure(codec: Codec, data: Uint8Array, size: number, streamed: boolean): Promise<InflateError> {
  try {
    if (streamed) await decodeStreamed(codec, data, size, 777);
    else codec.decode(data, size);
  } catch (error) {
    if (error instanceof InflateError) return error;
    throw error;
  }
  throw new Error('decoded without an error');
}

describe.skipIf(tools.skip)(`LZMA, method 14${tools.why}`, () => {
  const plain = text(300_000);

  it('decodes streams of the lzma program and Python, whole and in pieces down to one byte', async () => {
    const streams = [
      zipLzmaFromAlone(run('lzma', ['-c', '-6'], plain)),
      zipLzmaFromAlone(run('lzma', ['-c', '--lzma1=preset=1,lc=0,lp=2,pb=0'], plain)),
      zipLzmaFromAlone(run('lzma', ['-c', '--lzma1=preset=9e,lc=4,lp=0,pb=4,dict=64KiB'], plain)),
      zipLzmaFromAlone(python('lzma.compress(data, format=lzma.FORMAT_ALONE)', plain)),
    ];
    for (const stream of streams) {
      expect(decodeWhole(lzmaCodec, stream, plain.length).equals(plain)).toBe(true);
      expect((await decodeStreamed(lzmaCodec, stream, plain.length)).equals(plain)).toBe(true);
    }
    const small = plain.subarray(0, 3000);
    const stream = zipLzmaFromAlone(run('lzma', ['-c'], small));
    expect((await decodeStreamed(lzmaCodec, stream, small.length, 1)).equals(small)).toBe(true);
    const empty = zipLzmaFromAlone(run('lzma', ['-c'], new Uint8Array(0)));
    expect(decodeWhole(lzmaCodec, empty, 0).length).toBe(0);
  });

  it("decodes 7-Zip's zip entries, and a stream with no end marker that ends at the declared size", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-lzma-'));
    scratch.push(dir);
    fs.writeFileSync(path.join(dir, 'a.txt'), plain);
    const zip = path.join(dir, 'a.zip');
    execFileSync('7zz', ['a', '-tzip', '-mm=LZMA', zip, path.join(dir, 'a.txt')], { stdio: 'ignore' });
    const bytes = fs.readFileSync(zip);
    const start = 30 + bytes.readUInt16LE(26) + bytes.readUInt16LE(28);
    const data = bytes.subarray(start, start + bytes.readUInt32LE(18));
    expect(bytes.readUInt16LE(8)).toBe(14);
    expect(decodeWhole(lzmaCodec, data, plain.length).equals(plain)).toBe(true);
    expect((await decodeStreamed(lzmaCodec, data, plain.length)).equals(plain)).toBe(true);

    // An LZMA2 chunk that resets everything is raw LZMA without an end marker (liblzma wrote it).
    const small = plain.subarray(0, 20_000);
    const lzma2 = python('lzma.compress(data, format=lzma.FORMAT_RAW, filters=[{"id": lzma.FILTER_LZMA2}])', small);
    expect(lzma2[0]).toBeGreaterThanOrEqual(0xe0);
    const packed = lzma2.readUInt16BE(3) + 1;
    const noMarker = Buffer.concat([
      Buffer.from([9, 20, 5, 0, lzma2[5]!, 0, 0, 0x80, 0]),
      lzma2.subarray(6, 6 + packed),
    ]);
    expect(decodeWhole(lzmaCodec, noMarker, small.length).equals(small)).toBe(true);
    expect((await decodeStreamed(lzmaCodec, noMarker, small.length, 5)).equals(small)).toBe(true);
    // Declared shorter than the data: the next symbol is not an end marker, so the header lies.
    expect((await failure(lzmaCodec, noMarker, small.length - 1, false)).overflow).toBe(true);
  });

  it('stops at the declared size: less declared is an overflow, more is short output', async () => {
    const stream = zipLzmaFromAlone(run('lzma', ['-c'], plain));
    for (const streamed of [false, true]) {
      const error = await failure(lzmaCodec, stream, plain.length - 10, streamed);
      expect(error.overflow).toBe(true);
    }
    expect(decodeWhole(lzmaCodec, stream, plain.length + 10).equals(plain)).toBe(true);
    // A size declared far larger costs what the data holds, not what the header says.
    expect(decodeWhole(lzmaCodec, stream, 3e9).equals(plain)).toBe(true);
    expect((await decodeStreamed(lzmaCodec, stream, plain.length + 10)).equals(plain)).toBe(true);
  });

  it('refuses cut-off and damaged data and an absurd dictionary with a clear error', async () => {
    const stream = zipLzmaFromAlone(run('lzma', ['-c'], plain));
    for (const streamed of [false, true]) {
      const cut = await failure(lzmaCodec, stream.subarray(0, stream.length >> 1), plain.length, streamed);
      expect(cut.overflow).toBe(false);
      expect(cut.message).toBe('LZMA data is cut off (the stream ends early)');
      const header = Buffer.from(stream.subarray(0, 20));
      header.writeUInt16LE(4, 2);
      expect((await failure(lzmaCodec, header, plain.length, streamed)).message).toContain('4-byte properties');
      const huge = Buffer.from(stream);
      huge.writeUInt32LE(0xffffffff, 5);
      const bomb = await failure(lzmaCodec, huge, plain.length, streamed);
      expect(bomb.message).toContain('declares a 4096 MiB dictionary, more than the 1536 MiB zipfs accepts');
    }
    // A changed byte: the decoder sees it (or, rarely, the zip's CRC-32 would); either way not the text.
    const damaged = Buffer.from(stream);
    damaged[1000] = damaged[1000]! ^ 0x55;
    let out: Buffer | InflateError;
    try {
      out = decodeWhole(lzmaCodec, damaged, plain.length);
    } catch (error) {
      out = error as InflateError;
    }
    expect(out instanceof InflateError || !out.equals(plain)).toBe(true);
  });
});

describe.skipIf(tools.skip)(`xz, method 95${tools.why}`, () => {
  const plain = text(400_000, 7);

  it('decodes every check the xz program writes, several blocks, and concatenated streams', async () => {
    for (const check of ['none', 'crc32', 'crc64', 'sha256']) {
      const stream = run('xz', ['-c', `--check=${check}`], plain);
      expect(decodeWhole(xzCodec, stream, plain.length).equals(plain)).toBe(true);
      expect((await decodeStreamed(xzCodec, stream, plain.length)).equals(plain)).toBe(true);
    }
    const blocks = run('xz', ['-c', '-T2', '--block-size=65536'], plain);
    expect(decodeWhole(xzCodec, blocks, plain.length).equals(plain)).toBe(true);
    const two = Buffer.concat([run('xz', ['-c'], plain), Buffer.alloc(8), run('xz', ['-c', '-1'], plain)]);
    const both = Buffer.concat([plain, plain]);
    expect(decodeWhole(xzCodec, two, both.length).equals(both)).toBe(true);
    expect((await decodeStreamed(xzCodec, two, both.length, 1)).equals(both)).toBe(true);
  });

  it("decodes Python's xz with other lc/lp/pb, and streams output larger than its ring", async () => {
    const filters = '[{"id": lzma.FILTER_LZMA2, "preset": 1, "lc": 1, "lp": 3, "pb": 0}]';
    const stream = python(`lzma.compress(data, check=lzma.CHECK_CRC64, filters=${filters})`, plain);
    expect(decodeWhole(xzCodec, stream, plain.length).equals(plain)).toBe(true);
    const large = text(3_000_000, 3); // xz -0 has a 256 KiB dictionary: the ring is 1 MiB, wrapped three times
    const fast = run('xz', ['-c', '-0'], large);
    expect((await decodeStreamed(xzCodec, fast, large.length, 65_536)).equals(large)).toBe(true);
  });

  it('refuses a lying size before decoding the chunk that passes it, and returns short output', async () => {
    const stream = run('xz', ['-c'], plain);
    for (const streamed of [false, true]) expect((await failure(xzCodec, stream, 1000, streamed)).overflow).toBe(true);
    expect(decodeWhole(xzCodec, stream, plain.length + 1).equals(plain)).toBe(true);
    expect(decodeWhole(xzCodec, stream, 3e9).equals(plain)).toBe(true);
    const large = text(17_000_000, 5); // past the 16 MiB a whole window starts with
    expect(decodeWhole(xzCodec, run('xz', ['-c', '-0', '-T2'], large), large.length).equals(large)).toBe(true);
  });

  it('refuses damaged, cut-off and filtered streams, naming the fault', async () => {
    const stream = run('xz', ['-c', '--check=crc64'], plain);
    const checkAt = stream.length - 12 - (stream.readUInt32LE(stream.length - 8) + 1) * 4 - 8;
    const cases: [Uint8Array, string][] = [
      [stream.subarray(0, stream.length - 30), 'is cut off'],
      [flip(stream, checkAt), 'integrity check of a block differs'],
      [flip(stream, stream.length - 1), 'magic bytes'],
      [flip(stream, stream.length - 3), 'footer CRC32 differs'],
      [flip(stream, stream.length - 10), 'footer CRC32 differs'],
      [flip(stream, 13), 'block header CRC32 differs'],
      [flip(stream, 8), 'stream header CRC32 differs'],
      [Buffer.concat([stream, Buffer.from([0, 0, 1])]), 'stream padding'],
      [run('xz', ['-c', '--x86', '--lzma2'], plain), 'x86 BCJ filter, which zipfs does not decode'],
      [run('xz', ['-c', '--delta=dist=2', '--lzma2'], plain), 'delta filter'],
    ];
    for (const [data, message] of cases)
      for (const streamed of [false, true]) {
        const error = await failure(xzCodec, data, plain.length, streamed);
        expect(error.overflow).toBe(false);
        expect(error.message).toContain(message);
      }
    // A changed byte of the compressed data is always caught: by LZMA2's framing or by the check.
    expect((await failure(xzCodec, flip(stream, 5000), plain.length, false)).message).toContain('damaged');
  });
});

function flip(data: Uint8Array, at: number): Buffer {
  const copy = Buffer.from(data);
  copy[at] = copy[at]! ^ 0x10;
  return copy;
}
