/**
 * zstd (method 93) through the runtime's own libzstd (src/zip/codecs/zstd.ts): frames from the `zstd` CLI decode,
 * whole and streamed; damaged, cut off and lying entries are refused as deflate's are (ZIP_INVALID, a bomb past the
 * declared size); a changed entry is written back as zstd, piece by piece in one frame the CLI reads.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../../src/base/errors.ts';
import { InflateError } from '../../src/zip/codec.ts';
import { zstdCodec } from '../../src/zip/codecs/zstd.ts';
import {
  FileSource,
  assertReadable,
  encodeWhole,
  locateEntryData,
  methodToWrite,
  readEntryData,
  startPieceEncoding,
  streamEntryData,
} from '../../src/zip/index.ts';
import { writeZip } from '../helpers/test-codecs.ts';
import { needs } from '../helpers/tools.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-zstd-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const text = Buffer.from(Array.from({ length: 20000 }, (_, i) => `line ${i}: the quick brown fox ${i % 7}\n`).join(''));

/** The `zstd` CLI's frame of `data` (`args`: its options). */
function cliFrame(data: Uint8Array, args: string[] = []): Buffer {
  return execFileSync('zstd', ['-q', '-c', ...args], { input: data, maxBuffer: 64 << 20 });
}

/** What `zstd -d` makes of a frame (it checks the frame's end and, where written, its checksum). */
function cliDecode(frame: Uint8Array): Buffer {
  return execFileSync('zstd', ['-q', '-d', '-c'], { input: frame, maxBuffer: 64 << 20 });
}

async function streamed(data: Uint8Array, declared: number, pieceBytes = 64 << 10) {
  const pieces = Array.from({ length: Math.ceil(data.length / pieceBytes) }, (_, i) =>
    data.subarray(i * pieceBytes, (i + 1) * pieceBytes),
  );
  const out: Uint8Array[] = [];
  await zstdCodec.decodeStream(pieces, declared, (chunk) => out.push(chunk.slice()));
  return { bytes: Buffer.concat(out), chunks: out.length };
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing thrown');
}

async function rejected(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('nothing rejected');
}

describe.skipIf(needs('zstd').skip)('zstd frames from the zstd CLI', () => {
  it('decode whole and streamed, at levels 1 and 19 and without a content size', async () => {
    for (const args of [['-1'], ['-19'], ['--no-content-size', '-3']]) {
      const frame = cliFrame(text, args);
      expect(Buffer.from(zstdCodec.decode(frame, text.length))).toStrictEqual(text);
      expect((await streamed(frame, text.length, 1000)).bytes).toStrictEqual(text);
    }
  });

  it('decode two frames in a row as the data of one entry (RFC 8878: one or more frames)', () => {
    const frames = Buffer.concat([cliFrame(text.subarray(0, 1000)), cliFrame(text.subarray(1000))]);
    expect(Buffer.from(zstdCodec.decode(frames, text.length))).toStrictEqual(text);
  });

  it('refuse a window past 128 MiB (zstd --long=28), naming it, whole and streamed', async () => {
    const frame = execFileSync('zstd', ['-q', '-c', '--long=28'], { input: text }); // from a pipe: no content size
    const whole = thrown(() => zstdCodec.decode(frame, text.length)) as InflateError;
    const stream = (await rejected(() => streamed(frame, text.length))) as InflateError;
    for (const error of [whole, stream]) {
      expect(error).toBeInstanceOf(InflateError);
      expect(error.overflow).toBe(false);
      expect(error.message).toContain('window over 128 MiB');
    }
  });

  it('writes what the CLI reads: whole, and piece by piece in one frame', () => {
    expect(cliDecode(zstdCodec.encoder!.encode(text))).toStrictEqual(text);
    const pieces = startPieceEncoding(93, text.subarray(0, 100000));
    const frame = Buffer.concat([
      pieces.first,
      pieces.piece(text.subarray(100000, 300000)),
      pieces.piece(text.subarray(300000)),
      pieces.end(),
    ]);
    expect(pieces.method).toBe(93);
    expect(cliDecode(frame)).toStrictEqual(text);
    fs.writeFileSync(path.join(dir, 'pieces.zst'), frame);
    // One frame, so a reader that stops at a frame's end (Python's zipfile) reads it all.
    expect(
      execFileSync('zstd', ['-lv', path.join(dir, 'pieces.zst')], { stdio: ['ignore', 'pipe', 'ignore'] }).toString(),
    ).toMatch(/Zstandard Frames: 1\b/);
  });
});

describe('zstd decoding, bounded', () => {
  const frame = zstdCodec.encoder!.encode(text);

  it('stops past the declared size: overflow, whole and streamed', async () => {
    const whole = thrown(() => zstdCodec.decode(frame, text.length - 1)) as InflateError;
    const stream = (await rejected(() => streamed(frame, 5000))) as InflateError;
    for (const error of [whole, stream]) {
      expect(error).toBeInstanceOf(InflateError);
      expect(error.overflow).toBe(true);
    }
    // A tiny entry claiming little: 100 KB of zeros is a 20-byte frame.
    const zeros = zstdCodec.encoder!.encode(new Uint8Array(100_000));
    expect((thrown(() => zstdCodec.decode(zeros, 10)) as InflateError).overflow).toBe(true);
  });

  it('refuses damaged data as damaged, not as a bomb', async () => {
    const noMagic = Buffer.from(frame);
    noMagic[0] = 0;
    const whole = thrown(() => zstdCodec.decode(noMagic, text.length)) as InflateError;
    const stream = (await rejected(() => streamed(noMagic, text.length))) as InflateError;
    for (const error of [whole, stream]) {
      expect(error).toBeInstanceOf(InflateError);
      expect(error.overflow).toBe(false);
      expect(error.message).toStartWith('corrupt zstd data (');
    }
  });

  it('gives cut-off data short, never more: the entry reader calls it cut off', async () => {
    for (const cut of [frame.length - 1, Math.floor(frame.length / 2), 6]) {
      const part = frame.subarray(0, cut);
      expect(zstdCodec.decode(part, text.length).length).toBeLessThan(text.length);
      expect((await streamed(part, text.length)).bytes.length).toBeLessThan(text.length);
    }
  });

  it('streams a few-MB entry in pieces, as a large entry is extracted', async () => {
    const big = Buffer.concat(Array.from({ length: 12 }, () => text)); // 6.5 MB
    const out = await streamed(zstdCodec.encoder!.encode(big), big.length, 4 << 20);
    expect(out.bytes.equals(big)).toBe(true);
    expect(out.chunks).toBeGreaterThan(1); // handed on as it came, in 4 MiB pieces
  });
});

describe('a zstd entry in a zip', () => {
  it('reads whole and streamed, and refuses a lying size as a bomb and a cut-off one as invalid', async () => {
    const file = path.join(dir, 'entries.zip');
    const [good, bomb, cut] = writeZip(file, [
      { name: 'good.txt', method: 93, data: text },
      { name: 'bomb.txt', method: 93, data: text, declared: 1000 },
      { name: 'cut.txt', method: 93, data: text, declared: text.length + 1 },
    ]);
    expect(good!.method).toBe(93);
    expect(good!.versionNeeded).toBe(63);
    const source = new FileSource(file);
    try {
      expect(Buffer.from(readEntryData(source, good!))).toStrictEqual(text);
      const pieces: Uint8Array[] = [];
      await streamEntryData(source, good!, locateEntryData(source, good!), (piece) => pieces.push(piece.slice()));
      expect(Buffer.concat(pieces)).toStrictEqual(text);
      const lie = thrown(() => readEntryData(source, bomb!)) as ZipfsError;
      expect(lie.code).toBe('ZIP_BOMB_DETECTED');
      const short = thrown(() => readEntryData(source, cut!)) as ZipfsError;
      expect(short.code).toBe('ZIP_INVALID');
      expect(short.message).toContain('unexpected end of data');
    } finally {
      source.close();
    }
  });

  it('is written back as zstd, and two entries encoded piece by piece at once keep apart', () => {
    expect(methodToWrite(93)).toBe(93);
    expect(encodeWhole(text, 93).method).toBe(93);
    const a = startPieceEncoding(93, text.subarray(0, 5000));
    const b = startPieceEncoding(93, text.subarray(0, 7000));
    const aOut = [a.first, a.piece(text.subarray(5000, 9000))];
    const bOut = [b.first, b.piece(text.subarray(7000))];
    aOut.push(a.piece(text.subarray(9000)), a.end());
    bOut.push(b.end());
    expect(Buffer.from(zstdCodec.decode(Buffer.concat(aOut), text.length))).toStrictEqual(text);
    expect(Buffer.from(zstdCodec.decode(Buffer.concat(bOut), text.length))).toStrictEqual(text);
  });

  it('names the methods zipfs reads when it refuses another', () => {
    const [entry] = writeZip(path.join(dir, 'stored.zip'), [{ name: 'x.txt', method: 0, data: text }]);
    const error = thrown(() => assertReadable({ ...entry!, method: 98 })) as ZipfsError;
    expect(error.message).toContain('Entry "x.txt": uses compression method 98 (ppmd); zipfs reads');
    expect(error.message).toContain('zstd');
  });
});
