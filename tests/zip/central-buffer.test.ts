/**
 * The writer's central directory (central-buffer.ts): copied records are relocated in place when
 * the offset fits their 32-bit field, and rebuilt with a zip64 field otherwise; what comes out
 * parses back to the same entries at the new offsets.
 */
import { describe, expect, it } from 'bun:test';
import { CentralBuffer } from '../../src/zip/central-buffer.ts';
import { parseCentralRecordBytes } from '../../src/zip/index.ts';
import { encodeCentralRecord, relocateCentralRecord, type EntryFields } from '../../src/zip/records.ts';

const fields = (name: string): EntryFields => ({
  versionMadeBy: 0x314,
  flags: 0x800,
  method: 8,
  dosTime: 0x6000,
  dosDate: 0x5821,
  crc32: 0x12345678,
  compressedSize: 100,
  uncompressedSize: 300,
  rawName: new TextEncoder().encode(name),
  comment: new Uint8Array(0),
  internalAttributes: 0,
  externalAttributes: 0o100644 << 16,
});

describe('CentralBuffer', () => {
  it('relocates copied records in place and keeps where each starts', () => {
    const records = ['a.txt', 'folder/b.txt', 'c'].map((name, i) => encodeCentralRecord(fields(name), [], 1000 * i));
    const buffer = new CentralBuffer();
    records.forEach((record, i) => buffer.addRelocated(record, 7 + i));
    const bytes = buffer.contents().slice();
    expect(buffer.count).toBe(3);
    expect(buffer.length).toBe(records.reduce((n, r) => n + r.length, 0));
    buffer.recordStarts().forEach((start, i) => {
      const entry = parseCentralRecordBytes(bytes.subarray(start), i, 0, start);
      expect(entry.localHeaderOffset).toBe(7 + i);
      expect(entry.name).toBe(['a.txt', 'folder/b.txt', 'c'][i]!);
      expect(
        Buffer.from(bytes.subarray(start, start + records[i]!.length)).equals(
          relocateCentralRecord(records[i]!, 7 + i),
        ),
      ).toBe(true);
    });
    // The source records are copied, never changed.
    expect(parseCentralRecordBytes(records[1]!, 1, 0, 0).localHeaderOffset).toBe(1000);
  });

  it('copies a run of records in one piece, each offset moved, as one by one would', () => {
    const names = ['a.txt', 'folder/b.txt', 'c'];
    const records = names.map((name, i) => encodeCentralRecord(fields(name), [], 1000 * i + 5));
    const region = Buffer.concat([new Uint8Array([9, 9, 9]), ...records]); // the run starts inside a region
    const run = new CentralBuffer();
    run.add(records[0]!); // something before the run
    run.addShiftedRun(region, 3, region.length, 400);
    const single = new CentralBuffer();
    single.add(records[0]!);
    records.forEach((record, i) => single.addRelocated(record, 1000 * i + 405));
    expect(run.count).toBe(4);
    expect(run.recordStarts()).toStrictEqual(single.recordStarts());
    expect(Buffer.from(run.contents()).equals(Buffer.from(single.contents()))).toBe(true);
    const bytes = run.contents().slice();
    expect(parseCentralRecordBytes(bytes.subarray(run.recordStarts()[3]!), 3, 0, 0).localHeaderOffset).toBe(2405);
  });

  it('moves an offset past 4 GiB into a zip64 field, and rewrites one already there', () => {
    const buffer = new CentralBuffer();
    const plain = encodeCentralRecord(fields('big-offset.bin'), [], 10);
    const already64 = encodeCentralRecord(fields('was-far.bin'), [], 5 * 2 ** 32);
    buffer.addRelocated(plain, 6 * 2 ** 32);
    buffer.addRelocated(already64, 20);
    const bytes = buffer.contents().slice();
    const [first, second] = buffer.recordStarts();
    expect(parseCentralRecordBytes(bytes.subarray(first!), 0, 0, 0).localHeaderOffset).toBe(6 * 2 ** 32);
    expect(parseCentralRecordBytes(bytes.subarray(second!), 1, 0, 0).localHeaderOffset).toBe(20);
    expect(second! - first!).toBeGreaterThan(plain.length); // it grew by the zip64 field
  });

  it('grows past its first allocation without losing a byte', () => {
    const buffer = new CentralBuffer();
    const names = Array.from({ length: 3000 }, (_, i) => `dir${i % 17}/file-${i}.txt`);
    for (const [i, name] of names.entries()) buffer.add(encodeCentralRecord(fields(name), [], i));
    const bytes = buffer.contents().slice();
    expect(buffer.length).toBeGreaterThan(64 * 1024);
    const parsed = buffer.recordStarts().map((start, i) => parseCentralRecordBytes(bytes.subarray(start), i, 0, start));
    expect(parsed.map((e) => e.name)).toEqual(names);
    expect(parsed.map((e) => e.localHeaderOffset)).toEqual(names.map((_, i) => i));
  });
});
