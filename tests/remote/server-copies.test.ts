/**
 * The copies a remote S3 sync leaves to the server (src/remote/server-copies.ts), through the real ZipWriter: bytes the
 * mirror has are copied, the rest are holes never read, and every copy is a run of the old object.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ServerCopies } from '../../src/remote/server-copies.ts';
import { ZipWriter } from '../../src/zip/index.ts';

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-copies-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('copies made on the server', () => {
  it('copies what the mirror has, leaves holes for the rest, and notes each copy as a run', () => {
    const old = path.join(dir, 'old');
    fs.writeFileSync(old, Buffer.from(Array.from({ length: 100 }, (_, i) => i + 1)));
    const copies = new ServerCopies([
      [0, 10],
      [40, 60],
    ]);
    const file = path.join(dir, 'new');
    const fd = fs.openSync(file, 'w+');
    const source = fs.openSync(old, 'r');
    const writer = new ZipWriter(fd, 0, copies);
    writer.copyRange(source, 0, 20); // [0, 10) here, [10, 20) a hole
    writer.addCopiedRecord(new Uint8Array(46), 0); // nothing in between: the next copy starts a new range
    writer.finish(new Uint8Array(0), false);
    fs.closeSync(source);
    fs.closeSync(fd);
    const bytes = fs.readFileSync(file);
    expect([...bytes.subarray(0, 10)]).toStrictEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect([...bytes.subarray(10, 20)]).toStrictEqual(Array(10).fill(0));
    expect(copies.runs).toStrictEqual([{ start: 0, end: 20, from: 0 }]);
    expect(copies.holes).toStrictEqual([{ start: 10, end: 20, from: 10 }]);
    expect(copies.presentIn(bytes.length)).toStrictEqual([
      [0, 10],
      [20, bytes.length],
    ]);
  });

  it('joins copies that follow each other in both archives, and places holes by where they land', () => {
    const copies = new ServerCopies([[50, 70]]);
    expect(copies.copying(40, 60, 100)).toStrictEqual([[50, 60]]);
    expect(copies.copying(60, 80, 120)).toStrictEqual([[60, 70]]);
    expect(copies.runs).toStrictEqual([{ start: 100, end: 140, from: 40 }]);
    expect(copies.holes).toStrictEqual([
      { start: 100, end: 110, from: 40 },
      { start: 130, end: 140, from: 70 },
    ]);
  });

  it('says which ranges of the old object are absent (copied on the server, not checked here)', () => {
    const copies = new ServerCopies([
      [0, 10],
      [10, 30],
      [50, 60],
    ]);
    expect(copies.absent(0, 30)).toBe(false);
    expect(copies.absent(5, 35)).toBe(true);
    expect(copies.absent(40, 45)).toBe(true);
    expect(copies.absent(52, 58)).toBe(false);
    expect(copies.absent(55, 61)).toBe(true);
  });
});
