/**
 * Deflate64 (method 9, issue 32 point 4), read by zipfs's own inflater (src/zip/codecs/inflate64.ts): entries
 * written by 7-Zip (`-mm=Deflate64`, the writer the issue names) read back whole and streamed, byte for byte; the
 * codes Deflate64 changes (length 285 = 3 + 16 bits, distance codes 30 and 31) in streams made bit by bit here;
 * and every fault a stream can have (damaged, cut off, a header that lies) is an InflateError naming it.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InflateError } from '../../src/zip/codec.ts';
import { deflate64Codec } from '../../src/zip/codecs/deflate64.ts';
import {
  FileSource,
  locateEntryData,
  readCentralDirectory,
  readEntryData,
  streamEntryData,
} from '../../src/zip/index.ts';
import { needs } from '../helpers/tools.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-deflate64-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Pseudo-random bytes from a seed: the same on every run. */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let state = seed >>> 0 || 1;
  for (let at = 0; at < length; at++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[at] = state & 0xff;
  }
  return out;
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda'];
function text(lines: number, seed: number): Uint8Array {
  const picks = noise(lines * 6, seed);
  const out: string[] = [];
  for (let line = 0; line < lines; line++) {
    const words = Array.from(picks.subarray(line * 6, line * 6 + 6), (pick) => WORDS[pick % WORDS.length]);
    out.push(`${line}: ${words.join(' ')}\n`);
  }
  return new TextEncoder().encode(out.join(''));
}

/** Noise repeated 40-60 KiB apart (only Deflate64's distances reach back to it), with runs far past 258 bytes. */
function repetitive(): Uint8Array {
  const pieces: Uint8Array[] = [];
  const unit = noise(45_000, 7);
  for (let round = 0; round < 12; round++) pieces.push(unit, noise(1000 + round * 900, 100 + round));
  pieces.push(new Uint8Array(70_000).fill(0x61));
  return Buffer.concat(pieces);
}

const FILES: Record<string, Uint8Array> = {
  'text.txt': text(30_000, 1),
  // Noise between text: 7-Zip writes the noise as stored blocks inside the Deflate64 stream.
  'mixed.bin': Buffer.concat([text(3000, 2), noise(200_000, 3), text(3000, 4)]),
  'repetitive.bin': repetitive(),
};

interface Written {
  source: FileSource;
  raw: Map<string, Uint8Array>;
  methods: Map<string, number>;
}

/** The files zipped by 7-Zip as Deflate64, and each entry's compressed bytes. */
function sevenZip(): Written {
  const files = path.join(dir, 'files');
  fs.mkdirSync(files, { recursive: true });
  for (const [name, data] of Object.entries(FILES)) fs.writeFileSync(path.join(files, name), data);
  const zip = path.join(dir, 'seven.zip');
  fs.rmSync(zip, { force: true });
  execFileSync('7zz', ['a', '-tzip', '-mm=Deflate64', zip, ...Object.keys(FILES)], { cwd: files, stdio: 'ignore' });
  const source = new FileSource(zip);
  const raw = new Map<string, Uint8Array>();
  const methods = new Map<string, number>();
  for (const entry of readCentralDirectory(source).entries) {
    const span = locateEntryData(source, entry);
    raw.set(entry.name, source.read(span.dataOffset, entry.compressedSize).slice());
    methods.set(entry.name, entry.method);
  }
  return { source, raw, methods };
}

async function streamed(data: Uint8Array, size: number, pieceBytes: number): Promise<Uint8Array[]> {
  const pieces: Uint8Array[] = [];
  const input = function* () {
    for (let at = 0; at < data.length; at += pieceBytes) yield data.slice(at, at + pieceBytes);
  };
  await deflate64Codec.decodeStream(input(), size, (piece) => pieces.push(piece));
  return pieces;
}

function failure(run: () => unknown): InflateError {
  try {
    run();
  } catch (error) {
    if (error instanceof InflateError) return error;
    throw error;
  }
  throw new Error('no failure');
}

async function streamFailure(data: Uint8Array, size: number): Promise<InflateError> {
  try {
    await streamed(data, size, 4096);
  } catch (error) {
    if (error instanceof InflateError) return error;
    throw error;
  }
  throw new Error('no failure');
}

describe.skipIf(needs('7zz').skip)(`entries 7-Zip wrote as Deflate64${needs('7zz').why}`, () => {
  const written = sevenZip();

  it('read back whole and streamed, byte for byte, through the registry', async () => {
    const { entries } = readCentralDirectory(written.source);
    expect(entries.map((entry) => [entry.name, entry.method]).sort()).toStrictEqual(
      Object.keys(FILES)
        .sort()
        .map((name) => [name, 9]),
    );
    for (const entry of entries) {
      expect(Buffer.from(readEntryData(written.source, entry))).toStrictEqual(Buffer.from(FILES[entry.name]!));
      const pieces: Uint8Array[] = [];
      await streamEntryData(written.source, entry, locateEntryData(written.source, entry), (p) => pieces.push(p));
      expect(Buffer.concat(pieces)).toStrictEqual(Buffer.from(FILES[entry.name]!));
    }
  });

  it('uses what only Deflate64 has: plain inflate cannot read the repetitive entry', () => {
    const raw = written.raw.get('repetitive.bin')!;
    const data = FILES['repetitive.bin']!;
    // Noise shrinks only by matches 45 KiB back, past deflate's 32 KiB window.
    expect(raw.length).toBeLessThan(data.length / 4);
    let plain: Uint8Array | undefined;
    try {
      plain = Bun.inflateSync(raw as Uint8Array<ArrayBuffer>);
    } catch {}
    expect(plain === undefined || !Buffer.from(plain).equals(Buffer.from(data))).toBe(true);
  });

  it('streams in pieces of any size, handing on output as it goes and never more than ~1.1 MiB at once', async () => {
    for (const name of Object.keys(FILES)) {
      const raw = written.raw.get(name)!;
      const data = FILES[name]!;
      for (const pieceBytes of [1, 7, 65_536, raw.length]) {
        if (pieceBytes === 1 && raw.length > 200_000) continue;
        const pieces = await streamed(raw, data.length, pieceBytes);
        expect(Buffer.concat(pieces)).toStrictEqual(Buffer.from(data));
        expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual((1 << 20) + 65_536);
      }
    }
  });

  it('reads the input to its end (a layer under it checks itself there)', async () => {
    const raw = written.raw.get('text.txt')!;
    let finished = false;
    const input = function* () {
      yield raw;
      yield new Uint8Array(0);
      finished = true;
    };
    await deflate64Codec.decodeStream(input(), FILES['text.txt']!.length, () => {});
    expect(finished).toBe(true);
  });

  it('is cut off when its end is missing, whole and streamed', async () => {
    for (const name of Object.keys(FILES)) {
      const raw = written.raw.get(name)!;
      const size = FILES[name]!.length;
      for (const keep of [1, raw.length >> 1, raw.length - 1]) {
        const cut = raw.subarray(0, keep);
        const whole = failure(() => deflate64Codec.decode(cut, size));
        expect(whole.overflow).toBe(false);
        expect(whole.message).toBe('corrupt deflate64 data (unexpected end of data)');
        expect((await streamFailure(cut, size)).message).toBe('corrupt deflate64 data (unexpected end of data)');
      }
    }
  });

  it('stops at a declared size that lies, whole and streamed, as an overflow', async () => {
    for (const name of Object.keys(FILES)) {
      const raw = written.raw.get(name)!;
      const size = FILES[name]!.length;
      for (const declared of [0, 1000, size - 1]) {
        const whole = failure(() => deflate64Codec.decode(raw, declared));
        expect(whole.overflow).toBe(true);
        expect(whole.message).toBe(`inflates to more than the declared ${declared} bytes`);
        expect((await streamFailure(raw, declared)).overflow).toBe(true);
      }
      // A declared size past the output is the caller's to judge (cut off): the output is returned as it is.
      expect(deflate64Codec.decode(raw, size + 5).length).toBe(size);
    }
  });

  it('never takes flipped bits silently: an InflateError, or output the CRC-32 refuses', () => {
    const raw = written.raw.get('text.txt')!;
    const data = Buffer.from(FILES['text.txt']!);
    const flips = noise(400, 9);
    let errors = 0;
    for (let turn = 0; turn < 200; turn++) {
      const damaged = raw.slice();
      const at = ((flips[turn * 2]! << 8) | flips[turn * 2 + 1]!) % Math.min(raw.length, 2000);
      damaged[at]! ^= 1 << (turn % 8);
      try {
        const out = deflate64Codec.decode(damaged, data.length);
        expect(Buffer.from(out).equals(data)).toBe(false);
      } catch (error) {
        expect(error).toBeInstanceOf(InflateError);
        expect((error as InflateError).message).toMatch(/^(corrupt deflate64 data \(.+\)|inflates to more)/);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(50);
  });
});

/** A deflate stream written bit by bit, least significant first; Huffman codes go first bit first. */
class Bits {
  private bytes: number[] = [];
  private count = 0;
  put(value: number, bits: number): this {
    for (let bit = 0; bit < bits; bit++) {
      if (this.count % 8 === 0) this.bytes.push(0);
      this.bytes[this.bytes.length - 1]! |= ((value >>> bit) & 1) << (this.count % 8);
      this.count++;
    }
    return this;
  }
  code(code: number, bits: number): this {
    for (let bit = bits - 1; bit >= 0; bit--) this.put((code >>> bit) & 1, 1);
    return this;
  }
  /** A symbol of the fixed literal/length code (RFC 1951 3.2.6). */
  fixed(symbol: number): this {
    if (symbol < 144) return this.code(0x30 + symbol, 8);
    if (symbol < 256) return this.code(0x190 + symbol - 144, 9);
    if (symbol < 280) return this.code(symbol - 256, 7);
    return this.code(0xc0 + symbol - 280, 8);
  }
  align(): this {
    this.count = this.bytes.length * 8;
    return this;
  }
  done(): Uint8Array {
    return Uint8Array.from(this.bytes);
  }
}

function stored(bits: Bits, data: Uint8Array, last: boolean): Bits {
  bits
    .put(last ? 1 : 0, 1)
    .put(0, 2)
    .align()
    .put(data.length, 16)
    .put(~data.length & 0xffff, 16);
  for (const byte of data) bits.put(byte, 8);
  return bits;
}

describe('what Deflate64 changes, in streams written bit by bit', () => {
  it('reads length code 285 as 3 plus 16 extra bits: a match of 65,538 bytes', () => {
    const stream = new Bits().put(1, 1).put(1, 2).fixed(0x61).fixed(285).put(0xffff, 16).code(0, 5).fixed(256);
    const out = deflate64Codec.decode(stream.done(), 65_539);
    expect(out.length).toBe(65_539);
    expect(out.every((byte) => byte === 0x61)).toBe(true);
    const short = new Bits().put(1, 1).put(1, 2).fixed(0x62).fixed(285).put(0, 16).code(0, 5).fixed(256);
    expect(Buffer.from(deflate64Codec.decode(short.done(), 4)).toString()).toBe('bbbb');
  });

  it('grows the output, and hands it on, around matches that do not fit what is left', async () => {
    // 1 + 40 x 65,538 bytes from 70 bytes of input: the first buffer (1 MiB) and each streamed piece end mid-match.
    const bits = new Bits().put(1, 1).put(1, 2).fixed(0x7a);
    for (let match = 0; match < 40; match++) bits.fixed(285).put(0xffff, 16).code(0, 5);
    const stream = bits.fixed(256).done();
    const size = 1 + 40 * 65_538;
    const whole = deflate64Codec.decode(stream, size);
    expect(whole.length).toBe(size);
    expect(whole.every((byte) => byte === 0x7a)).toBe(true);
    const pieces = await streamed(stream, size, 3);
    expect(pieces.reduce((sum, piece) => sum + piece.length, 0)).toBe(size);
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.every((piece) => piece.every((byte) => byte === 0x7a))).toBe(true);
    // One byte short: the last match does not fit the declared size, whole or streamed.
    expect(failure(() => deflate64Codec.decode(stream, size - 1)).overflow).toBe(true);
    expect((await streamFailure(stream, size - 1)).overflow).toBe(true);
  });

  it('reads distance codes 30 and 31, reaching 64 KiB back', () => {
    const data = noise(65_536, 11);
    const bits = stored(stored(new Bits(), data.subarray(0, 40_000), false), data.subarray(40_000), false);
    // Distance code 30 (32,769 + 14 bits) and 31 (49,153 + 14 bits, all set: 65,536), 10 bytes each.
    bits.put(1, 1).put(1, 2).fixed(264).code(30, 5).put(5, 14).fixed(264).code(31, 5).put(0x3fff, 14).fixed(256);
    const out = deflate64Codec.decode(bits.done(), 65_556);
    expect(Buffer.from(out.subarray(65_536, 65_546))).toStrictEqual(Buffer.from(data.subarray(32_762, 32_772)));
    expect(Buffer.from(out.subarray(65_546))).toStrictEqual(Buffer.from(out.subarray(10, 20)));
  });

  it('decodes plain deflate the same where the two agree (no length 258, no distance past 32 KiB)', () => {
    const data = text(20_000, 5);
    const raw = Bun.deflateSync(data as Uint8Array<ArrayBuffer>, { level: 6 });
    expect(Buffer.from(deflate64Codec.decode(raw, data.length))).toStrictEqual(Buffer.from(data));
  });

  it('reads an empty stream, and streams nothing out of it', async () => {
    const empty = new Bits().put(1, 1).put(1, 2).fixed(256).done();
    expect(deflate64Codec.decode(empty, 0).length).toBe(0);
    expect(await streamed(empty, 0, 1)).toStrictEqual([]);
  });
});

describe('a damaged stream is refused with its reason', () => {
  const fixed = () => new Bits().put(1, 1).put(1, 2);
  /** A dynamic block's header whose code length code has these lengths (in RFC 1951's order). */
  const dynamic = (codeLengths: number[]) => {
    const bits = new Bits()
      .put(1, 1)
      .put(2, 2)
      .put(0, 5)
      .put(0, 5)
      .put(codeLengths.length - 4, 4);
    for (const length of codeLengths) bits.put(length, 3);
    return bits.put(0, 32);
  };
  const cases: [string, Uint8Array, string][] = [
    ['a block of type 3', new Bits().put(1, 1).put(3, 2).put(0, 16).done(), 'invalid block type'],
    [
      'a stored block whose length is not its complement',
      new Bits().put(1, 1).put(0, 2).align().put(5, 16).put(5, 16).done(),
      'stored block length does not match its complement',
    ],
    ['literal/length code 286', fixed().fixed(286).fixed(256).done(), 'invalid literal/length code'],
    [
      'a distance before the output',
      fixed().fixed(0x61).fixed(257).code(1, 5).fixed(256).done(),
      'distance too far back',
    ],
    ['an over-subscribed code length code', dynamic([1, 1, 1, 0]).done(), 'over-subscribed code length code'],
    ['an incomplete code length code', dynamic([2, 0, 0, 0]).done(), 'incomplete code length code'],
    [
      'more than 286 literal/length codes',
      new Bits().put(1, 1).put(2, 2).put(30, 5).put(0, 5).put(0, 4).put(0, 32).done(),
      'too many literal/length codes',
    ],
  ];
  for (const [what, stream, reason] of cases) {
    it(`${what}: "${reason}"`, async () => {
      const error = failure(() => deflate64Codec.decode(stream, 100_000));
      expect(error.message).toBe(`corrupt deflate64 data (${reason})`);
      expect(error.overflow).toBe(false);
      expect((await streamFailure(stream, 100_000)).message).toBe(`corrupt deflate64 data (${reason})`);
    });
  }

  /**
   * A dynamic block of 257 literal/length and 1 distance codes whose lengths, in that order, are `zeros` 0s and
   * then 8s; the code length code has two symbols of one bit: 0 (sent as 0) and 8 (sent as 1).
   */
  const lengths = (zeros: number, distanceLength: number) => {
    const bits = new Bits().put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(1, 4).put(0, 9).put(1, 3).put(1, 3);
    for (let symbol = 0; symbol < 257; symbol++) bits.code(symbol < zeros ? 0 : 1, 1);
    return bits
      .code(distanceLength === 8 ? 1 : 0, 1)
      .put(0, 32)
      .done();
  };
  it('over-subscribed, incomplete and missing codes of a dynamic block', () => {
    const reason = (stream: Uint8Array) => failure(() => deflate64Codec.decode(stream, 1000)).message;
    expect(reason(lengths(0, 8))).toBe('corrupt deflate64 data (over-subscribed literal/length code)');
    expect(reason(lengths(2, 8))).toBe('corrupt deflate64 data (incomplete literal/length code)');
    expect(reason(lengths(1, 8))).toBe('corrupt deflate64 data (incomplete distance code)');
    expect(reason(lengths(257, 8))).toBe('corrupt deflate64 data (no end-of-block code)');
    // No distance code at all is allowed (a block of literals), until a match needs one.
    expect(() => deflate64Codec.decode(lengths(1, 0), 1000)).not.toThrow(/code\)/);
  });
});
