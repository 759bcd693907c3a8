/**
 * The codec registry is the one place a compression method is decided: a method registered once,
 * here a test-only run-length codec (method 250) registered in-process, is used by every path that
 * reads or writes entry data: the whole read, the streamed read, the lazy reader, grep's zip
 * reading, sync's in-place check and its encoders. And an encryption layer registered once sits
 * under the codec on every path. Nothing outside src/zip/ had to learn of either.
 */
import { afterAll, afterEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../../src/base/errors.ts';
import { openLazy } from '../../src/open/open-lazy.ts';
import { loadLimits } from '../../src/rules/limits.ts';
import { readZipEntry } from '../../src/search/grep-sources.ts';
import { lazyEntries } from '../../src/session/lazy-session.ts';
import { LazyReader } from '../../src/workspace/lazy-reader.ts';
import { decodingOf } from '../../src/zip/codec-registry.ts';
import {
  FileSource,
  assertReadable,
  decodeOrUndefined,
  encodeWhole,
  locateEntryData,
  methodToWrite,
  plainlyReadable,
  readEntryData,
  registerCipher,
  registerCodec,
  startPieceEncoding,
  streamEntryData,
  type ZipEntry,
} from '../../src/zip/index.ts';
import { RLE, rle, text, used, writeZip, xorCipher } from '../helpers/test-codecs.ts';

async function streamed(source: FileSource, entry: ZipEntry): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  await streamEntryData(source, entry, locateEntryData(source, entry), (piece) => pieces.push(piece.slice()));
  return Buffer.concat(pieces);
}

function refusal(run: () => unknown): ZipfsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ZipfsError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

async function rejection(run: () => Promise<unknown>): Promise<ZipfsError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ZipfsError) return error;
    throw error;
  }
  throw new Error('no rejection');
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-codec-registry-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const undo: (() => void)[] = [];
afterEach(() => {
  for (const take of undo.splice(0)) take();
});

describe('a codec registered once', () => {
  it('is refused, naming the method and the entry, until it is registered', () => {
    undo.push(registerCodec(rle));
    const [entry] = writeZip(path.join(dir, 'unknown.zip'), [{ name: 'docs/a.txt', method: RLE, data: text }]);
    undo.pop()!();
    const error = refusal(() => assertReadable(entry!));
    expect(error.code).toBe('ZIP_INVALID');
    // The list of methods read grows with the built-in codecs (bzip2.ts and others): only its ends are fixed.
    expect(error.message).toStartWith(
      'Entry "docs/a.txt": uses compression method 250 (unknown); zipfs reads stored, ',
    );
    expect(error.message).toEndWith(
      ' entries, so re-create the archive with deflate. The archive is damaged or uses a feature zipfs cannot read; ' +
        'nothing was extracted.',
    );
    expect(plainlyReadable(0, RLE)).toBe(false);
    expect(plainlyReadable(0, 8)).toBe(true);
  });

  it('is used by the whole read, the streamed read and the in-place check', async () => {
    undo.push(registerCodec(rle));
    const file = path.join(dir, 'rle.zip');
    const [entry] = writeZip(file, [{ name: 'a.txt', method: RLE, data: text }]);
    expect(entry!.method).toBe(RLE);
    expect(entry!.compressedSize).toBeLessThan(text.length / 4);
    expect(entry!.versionNeeded).toBe(63); // from the codec, not a table elsewhere
    const source = new FileSource(file);
    try {
      const before = { ...used };
      expect(Buffer.from(readEntryData(source, entry!))).toStrictEqual(text);
      expect(await streamed(source, entry!)).toStrictEqual(text);
      const span = locateEntryData(source, entry!);
      const raw = source.read(span.dataOffset, entry!.compressedSize).slice();
      expect(Buffer.from(decodeOrUndefined(RLE, raw, text.length)!)).toStrictEqual(text);
      expect(decodeOrUndefined(RLE, raw, text.length + 1)).toBeUndefined(); // short output is a fault
      expect(used.decode - before.decode).toBe(3);
      expect(used.decodeStream - before.decodeStream).toBe(1);
    } finally {
      source.close();
    }
  });

  it("stops at the declared size on every path: a lying header is a bomb, as deflate's is", async () => {
    undo.push(registerCodec(rle));
    const file = path.join(dir, 'rle-bomb.zip');
    const [entry] = writeZip(file, [{ name: 'bomb.txt', method: RLE, data: text, declared: 100 }]);
    const source = new FileSource(file);
    try {
      const whole = refusal(() => readEntryData(source, entry!));
      const stream = await rejection(() => streamed(source, entry!));
      for (const error of [whole, stream]) {
        expect(error.code).toBe('ZIP_BOMB_DETECTED');
        expect(error.message).toBe(
          'Entry "bomb.txt" inflates to more than the 100 bytes its header declares; its headers lie, so the ' +
            'archive was refused.',
        );
      }
    } finally {
      source.close();
    }
  });

  it('is used by the lazy reader and grep, and open --lazy accepts it', async () => {
    undo.push(registerCodec(rle));
    const file = path.join(dir, 'lazy.zip');
    writeZip(file, [
      { name: 'a.txt', method: RLE, data: text },
      { name: 'b.txt', method: 8, data: Buffer.from('deflated\n') },
    ]);
    const home = fs.mkdtempSync(path.join(dir, 'home-'));
    const limits = loadLimits({});
    const session = await openLazy({ zipPath: file, home, limits }, file);
    const lazy = lazyEntries(session)!;
    const reader = new LazyReader(session, lazy, limits);
    try {
      const before = { ...used };
      expect(Buffer.from(reader.read(0))).toStrictEqual(text);
      const pieces: Uint8Array[] = [];
      await reader.stream(0, (piece) => pieces.push(piece.slice()));
      expect(Buffer.concat(pieces)).toStrictEqual(text);
      const grepped: Uint8Array[] = [];
      const grepSource = new FileSource(file);
      await readZipEntry(grepSource, reader.location(0), (piece) => grepped.push(piece.slice()) > 0);
      grepSource.close();
      expect(Buffer.concat(grepped)).toStrictEqual(text);
      expect(used.decode - before.decode).toBe(2);
      expect(used.decodeStream - before.decodeStream).toBe(1);
    } finally {
      reader.close();
    }
    undo.pop()!();
    const home2 = fs.mkdtempSync(path.join(dir, 'home-'));
    const error = await rejection(() => openLazy({ zipPath: file, home: home2, limits }, file));
    expect(error.message).toContain('Entry "a.txt": uses compression method 250 (unknown)');
  });

  it('writes changed entries in their own method when it can encode, whole and in pieces', () => {
    undo.push(registerCodec(rle));
    expect(methodToWrite(RLE)).toBe(RLE);
    expect(methodToWrite(0)).toBe(0);
    expect(methodToWrite(12)).toBe(8); // no codec to write bzip2 with: deflate, as before
    const before = { ...used };
    expect(encodeWhole(text, RLE).method).toBe(RLE);
    const pieces = startPieceEncoding(RLE, text.subarray(0, 1000));
    const encoded = Buffer.concat([pieces.first, pieces.piece(text.subarray(1000)), pieces.end()]);
    expect(pieces.method).toBe(RLE);
    expect(Buffer.from(rle.decode(encoded, text.length))).toStrictEqual(text);
    expect(used.encode - before.encode).toBe(1);
    expect(used.encodePiece - before.encodePiece).toBe(3);
  });

  it("keeps 'auto' as before: deflate unless it does not help, whole and in pieces", () => {
    expect(encodeWhole(text, 'auto').method).toBe(8);
    const noise = crypto.getRandomValues(new Uint8Array(64 << 10));
    expect(encodeWhole(noise, 'auto')).toStrictEqual({ method: 0, data: noise });
    expect(startPieceEncoding('auto', text).method).toBe(8);
    const stored = startPieceEncoding('auto', noise);
    expect(stored.method).toBe(0);
    expect(Buffer.from(stored.first)).toStrictEqual(Buffer.from(noise));
    expect(stored.end().length).toBe(0);
  });
});

describe('an encryption layer registered once', () => {
  it('is refused as before while none is registered', () => {
    undo.push(registerCodec(rle));
    const [entry] = writeZip(path.join(dir, 'locked.zip'), [{ name: 'x.txt', method: RLE, data: text, flags: 1 }]);
    const error = refusal(() => assertReadable(entry!));
    // Without a layer (no password), an encrypted entry stays in the zip: a read of it is refused as such.
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toContain('Entry "x.txt" is encrypted (zipcrypto) and zipfs has no password');
    expect(plainlyReadable(1, RLE)).toBe(false);
  });

  it('sits under the codec on the whole and the streamed read', async () => {
    undo.push(registerCodec(rle), registerCipher(xorCipher));
    const file = path.join(dir, 'xor.zip');
    const [entry] = writeZip(file, [{ name: 'x.txt', method: RLE, data: text, flags: 1 }]);
    expect(decodingOf(entry!)?.cipher).toBe(xorCipher);
    const source = new FileSource(file);
    try {
      expect(Buffer.from(readEntryData(source, entry!))).toStrictEqual(text);
      expect(await streamed(source, entry!)).toStrictEqual(text);
    } finally {
      source.close();
    }
  });
});

describe('the built-in codecs loaded on demand', () => {
  it('say what their modules say before they are loaded', async () => {
    const { BUILT_IN_CODECS } = await import('../../src/zip/codecs/built-in.ts');
    const modules = [
      (await import('../../src/zip/codecs/stored.ts')).storedCodec,
      (await import('../../src/zip/codecs/deflate.ts')).deflateCodec,
      (await import('../../src/zip/codecs/deflate64.ts')).deflate64Codec,
      (await import('../../src/zip/codecs/zstd.ts')).zstdCodec,
      (await import('../../src/zip/codecs/bzip2.ts')).bzip2Codec,
      (await import('../../src/zip/codecs/lzma.ts')).lzmaCodec,
      (await import('../../src/zip/codecs/xz.ts')).xzCodec,
    ];
    const facts = (codec: (typeof modules)[number]) => ({
      method: codec.method,
      name: codec.name,
      versionNeeded: codec.versionNeeded,
      identity: codec.identity,
      writes: codec.encoder !== undefined,
      sizeFault: codec.sizeFault?.(10, 5),
    });
    expect(BUILT_IN_CODECS.map(facts)).toStrictEqual(modules.map(facts));
  });
});
