import { describe, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { STAT_FIELDS, libc } from '../../src/base/libc.ts';

const native = libc();

describe.skipIf(!native)('statAt (statx through bun:ffi)', () => {
  test('gives what lstat gives: the scan compares its stats with ones node:fs took', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-statat-'));
    try {
      fs.writeFileSync(path.join(dir, 'file.txt'), 'x'.repeat(5000));
      // A time with nanoseconds, and one before 1970 (the seconds' high half is negative).
      fs.utimesSync(path.join(dir, 'file.txt'), 1_700_000_000.123456, 1_700_000_000.123456);
      fs.writeFileSync(path.join(dir, 'old.txt'), '');
      fs.utimesSync(path.join(dir, 'old.txt'), -86_400.5, -86_400.5);
      fs.symlinkSync('file.txt', path.join(dir, 'link'));
      fs.mkdirSync(path.join(dir, 'sub'));
      const fd = fs.openSync(dir, 'r');
      try {
        for (const name of ['file.txt', 'old.txt', 'link', 'sub']) {
          const out = new Float64Array(STAT_FIELDS.count);
          expect(native!.statAt(fd, name, out)).toBe(true);
          const ours = {
            mode: out[STAT_FIELDS.mode],
            size: out[STAT_FIELDS.size],
            ino: out[STAT_FIELDS.ino],
            nlink: out[STAT_FIELDS.nlink],
            mtimeMs: out[STAT_FIELDS.mtimeMs],
            ctimeMs: out[STAT_FIELDS.ctimeMs],
          };
          const node = fs.lstatSync(path.join(dir, name));
          expect({ name, ...ours }).toEqual({
            name,
            mode: node.mode,
            size: node.size,
            ino: node.ino,
            nlink: node.nlink,
            mtimeMs: node.mtimeMs,
            ctimeMs: node.ctimeMs,
          });
        }
        expect(native!.statAt(fd, 'missing', new Float64Array(STAT_FIELDS.count))).toBe(false);
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
