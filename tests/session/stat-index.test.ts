/**
 * The stat index's own checks (src/session/stat-index.ts): a flags byte it never writes makes the
 * whole index ignored, wherever the byte is, even under a CRC-32 made to match.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type IndexedEntry, STAT_INDEX, readStatIndex, statIndexBytes } from '../../src/session/stat-index.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const stamp = { size: 1234, crc32: 42 };
const HEADER_BYTES = 32;

/** Seven entries (one word of four flags, and three after it), of every type, recorded or not. */
function entries(): IndexedEntry[] {
  const types = ['file', 'dir', 'symlink', 'file', 'dir', 'symlink', 'file'] as const;
  return types.map((type, i) => ({
    path: `item-${i}`,
    type,
    size: i,
    mtime_ms: 1000 + i,
    ...(i % 2 === 0 ? { extracted: { size: i, mtime_ms: 1000 + i, ctime_ms: 2000 + i, ino: 10 + i } } : {}),
  }));
}

/** Writes `bytes` as an index, its CRC-32 made to match, and reads it back. */
function readBack(bytes: Uint8Array) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-stat-index-'));
  dirs.push(dir);
  new DataView(bytes.buffer).setUint32(28, Bun.hash.crc32(bytes.subarray(HEADER_BYTES)), true);
  fs.writeFileSync(path.join(dir, STAT_INDEX), bytes);
  return readStatIndex(dir, stamp);
}

describe('the stat index flags', () => {
  it('reads an index of every type it writes', () => {
    const index = readBack(statIndexBytes(entries(), stamp)!);
    expect(index?.count).toBe(7);
    expect(index?.paths).toStrictEqual(entries().map((e) => e.path));
    expect([...index!.flags]).toStrictEqual([4, 1, 6, 0, 5, 2, 4]);
  });

  for (const at of [0, 3, 4, 6])
    for (const bad of [3, 7, 8, 0x80])
      it(`ignores the index for a flags byte of ${bad} at entry ${at}`, () => {
        const bytes = statIndexBytes(entries(), stamp)!;
        bytes[HEADER_BYTES + 4 * 8 * 7 + at] = bad;
        expect(readBack(bytes)).toBeUndefined();
      });

  it('ignores an index whose paths are not UTF-8', () => {
    const bytes = statIndexBytes(entries(), stamp)!;
    bytes[bytes.length - 1] = 0xff;
    expect(readBack(bytes)).toBeUndefined();
  });
});
