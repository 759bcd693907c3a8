import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { deflateRawPiece, inflateRawStream } from '../../src/zip/codec.ts';
import { FileSource, ZipWriter, readCentralDirectory, readEntryData } from '../../src/zip/index.ts';
import { needs } from '../helpers/tools.ts';

/** Folders the tests made, removed once they have run. */
const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) fs.rmSync(dir, { recursive: true, force: true });
});

describe('deflate in pieces', () => {
  it('makes one raw deflate stream that inflates to the whole, piece boundaries anywhere', () => {
    const text = Buffer.from(
      Array.from({ length: 30_000 }, (_, i) => `line ${i} ${i % 7 === 0 ? 'seven' : 'other'}\n`).join(''),
    );
    const pieces = [
      text.subarray(0, 1),
      text.subarray(1, 100_000),
      text.subarray(100_000, 100_000),
      text.subarray(100_000),
    ];
    const stream = Buffer.concat([
      ...pieces.map((p) => deflateRawPiece(p, false)),
      deflateRawPiece(new Uint8Array(0), true),
    ]);
    expect(zlib.inflateRawSync(stream).equals(text)).toBe(true);
    expect(stream.length).toBeLessThan(text.length / 4);
  });
});

describe('inflating to a sink that fails', () => {
  it("rejects with the sink's error instead of never settling (a full disk once hung open)", async () => {
    const data = zlib.deflateRawSync(Buffer.alloc(8 << 20, 'x'));
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    let calls = 0;
    const outcome = inflateRawStream([data], 8 << 20, () => {
      if (++calls === 2) throw full;
    });
    expect(
      await outcome.then(
        () => 'resolved',
        (error) => error,
      ),
    ).toBe(full);
  });
});

describe('streamed entries', () => {
  it.skipIf(needs('python3').skip)(
    `patch their header in place and, with zip64 forced, carry both sizes in the zip64 field${needs('python3').why}`,
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-writer-'));
      scratch.push(dir);
      const file = path.join(dir, 'streamed.zip');
      const fd = fs.openSync(file, 'w');
      const writer = new ZipWriter(fd);
      const piece = Buffer.from('streamed content\n'.repeat(1000));
      const name = new TextEncoder().encode('s.txt');
      const frame = {
        versionMadeBy: 0x314,
        flags: 0,
        method: 8,
        dosTime: 0,
        dosDate: 0x21,
        crc32: 0,
        compressedSize: 0,
        uncompressedSize: 0,
        rawName: name,
        comment: new Uint8Array(0),
        internalAttributes: 0,
        externalAttributes: 0,
      };
      for (const zip64 of [false, true]) {
        await writer.addStreamedEntry(
          { ...frame, rawName: new TextEncoder().encode(`s${zip64 ? 64 : 32}.txt`), zip64 },
          [],
          [],
          async (write) => {
            let packed = 0;
            for (const chunk of [
              deflateRawPiece(piece, false),
              deflateRawPiece(piece, false),
              deflateRawPiece(new Uint8Array(0), true),
            ]) {
              write(chunk);
              packed += chunk.length;
            }
            return {
              crc32: Bun.hash.crc32(Buffer.concat([piece, piece])),
              uncompressedSize: piece.length * 2,
              compressedSize: packed,
            };
          },
        );
      }
      writer.finish(new Uint8Array(0), false);
      fs.closeSync(fd);
      const source = new FileSource(file);
      const entries = readCentralDirectory(source).entries;
      expect(entries.map((e) => [e.name, e.versionNeeded, e.uncompressedSize])).toStrictEqual([
        ['s32.txt', 20, piece.length * 2],
        ['s64.txt', 45, piece.length * 2],
      ]);
      for (const entry of entries)
        expect(Buffer.from(readEntryData(source, entry)).equals(Buffer.concat([piece, piece]))).toBe(true);
      source.close();
      const python = Bun.spawnSync([
        'python3',
        '-c',
        'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); print(z.testzip(), [len(z.read(n)) for n in ' +
          'z.namelist()])',
        file,
      ]);
      expect(python.stdout.toString().trim()).toBe(`None [${piece.length * 2}, ${piece.length * 2}]`);
    },
  );
});
