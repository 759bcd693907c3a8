/**
 * Whole-entry inflation (codec.ts inflateRaw): small inputs go through Bun's own inflate, larger
 * ones through node:zlib in one piece; both stop a header that understates the size, and both
 * refuse corrupt data.
 */
import { describe, expect, it } from 'bun:test';
import zlib from 'node:zlib';
import { InflateError, inflateRaw } from '../../src/zip/codec.ts';

const small = Buffer.from('a small text entry\n'.repeat(50)); // deflates to well under 16 KiB
// deflates to more
const large = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `${(i * 2654435761) % 1000003} `).join(''));

for (const [label, original] of [
  ['small input (Bun inflate)', small],
  ['large input (node:zlib)', large],
] as const) {
  describe(label, () => {
    const deflated = zlib.deflateRawSync(original);

    it('inflates to the declared size', () => {
      expect(deflated.length > 16 * 1024).toBe(original === large);
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
