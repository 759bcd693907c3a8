/**
 * Whole-entry inflation (codec.ts inflateRaw): small inputs go through Bun's own inflate, larger
 * ones through a system library (Linux: native-inflate.ts) without loading node:zlib, entries
 * declared past 16 MiB through node:zlib in one piece; each stops a header that understates the
 * size, and each refuses corrupt data. The cases run in order: the third loads node:zlib.
 */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { InflateError, inflateRaw, zlibLoaded } from '../../src/zip/codec.ts';

/** Whether inflating `deflated` loads node:zlib in a process that has done nothing else. */
function zlibLoadedInFreshProcess(deflated: Uint8Array, size: number): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inflate-whole-'));
  try {
    fs.writeFileSync(path.join(dir, 'data'), deflated);
    const codec = path.resolve(import.meta.dir, '../../src/zip/codec.ts');
    const script =
      `import { inflateRaw, zlibLoaded } from ${JSON.stringify(codec)};` +
      `inflateRaw(require('node:fs').readFileSync(${JSON.stringify(path.join(dir, 'data'))}), ${size});` +
      'console.log(zlibLoaded());';
    const run = Bun.spawnSync([process.execPath, '-e', script], { env: { ...process.env, NODE_ENV: '' } });
    expect(run.exitCode).toBe(0);
    return run.stdout.toString().trim() === 'true';
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const small = Buffer.from('a small text entry\n'.repeat(50)); // deflates to well under 16 KiB
// deflates to more
const large = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `${(i * 2654435761) % 1000003} `).join(''));

// Declared past 16 MiB: node:zlib, which grows its output as it comes.
const huge = Buffer.from(Array.from({ length: 2_500_000 }, (_, i) => `${(i * 2654435761) % 1000003} `).join(''));

for (const [label, original, loadsZlib] of [
  ['small input (Bun inflate)', small, false],
  ['large input (the system zlib on Linux)', large, process.platform !== 'linux'],
  ['past 16 MiB (node:zlib)', huge, true],
  ['large input once node:zlib is loaded', large, true],
] as const) {
  describe(label, () => {
    const deflated = zlib.deflateRawSync(original, { level: 1 });

    it(loadsZlib ? 'loads node:zlib' : 'needs no node:zlib', () => {
      expect(original.length > 16 << 20).toBe(original === huge);
      inflateRaw(deflated, original.length);
      // Another test file of this process may have loaded it already: asked of a fresh process then.
      if (!loadsZlib) expect(zlibLoadedInFreshProcess(deflated, original.length)).toBe(false);
      else expect(zlibLoaded()).toBe(true);
    });

    it('inflates to the declared size', () => {
      expect(deflated.length > 16 * 1024).toBe(original !== small);
      expect(Buffer.from(inflateRaw(deflated, original.length)).equals(original)).toBe(true);
    });

    it('reports a header that declares fewer bytes than the data holds as an overflow', () => {
      let caught: unknown;
      try {
        inflateRaw(deflated, original.length - 1);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InflateError);
      expect((caught as InflateError).overflow).toBe(true);
    });

    it('refuses corrupt data without calling it an overflow', () => {
      const corrupt = Buffer.from(deflated);
      corrupt[0] = 0xff; // block type 3: reserved, invalid in every stream
      let caught: unknown;
      try {
        inflateRaw(corrupt, original.length);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InflateError);
      expect((caught as InflateError).overflow).toBe(false);
    });
  });
}

it('a small input that inflates to a lot (a bomb kernel) is still only an overflow', () => {
  const bomb = zlib.deflateRawSync(Buffer.alloc(10 << 20));
  expect(bomb.length).toBeLessThan(16 * 1024);
  let caught: unknown;
  try {
    inflateRaw(bomb, 1000);
  } catch (error) {
    caught = error;
  }
  expect((caught as InflateError).overflow).toBe(true);
});
