import { describe, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { libc } from '../../src/base/libc.ts';

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
          const ours = native!.statAt(fd, name)!;
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
        expect(native!.statAt(fd, 'missing')).toBeUndefined();
      } finally {
        fs.closeSync(fd);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
