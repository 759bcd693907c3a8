/**
 * Raw inflate through a system library (native-inflate.ts), libdeflate and zlib alike: the output
 * of a whole stream within the bound, an overflow when the stream wants more room, and damaged or
 * cut-off data as corrupt; ZIPFS_NATIVE=0 turns it off. Linux only, as base/libc.ts; libdeflate
 * where it is installed (libdeflate0, which libtiff brings).
 */
import { describe, expect, it } from 'bun:test';
import zlib from 'node:zlib';
import { nativeInflate, nativeLibrary } from '../../src/zip/native-inflate.ts';

const text = Buffer.from(Array.from({ length: 40_000 }, (_, i) => `${(i * 2654435761) % 1000003} `).join(''));
const deflated = zlib.deflateRawSync(text);

const linux = process.platform === 'linux';

describe.skipIf(!linux)(linux ? 'on Linux' : 'on Linux (skipped: not Linux)', () => {
  it('one is loaded: libdeflate where it is installed, else zlib', () => {
    expect(nativeInflate()?.library).toBe(nativeLibrary('libdeflate') ? 'libdeflate' : 'zlib');
  });

  it('is off with ZIPFS_NATIVE=0', () => {
    const module = new URL('../../src/zip/native-inflate.ts', import.meta.url).pathname;
    const probe = Bun.spawnSync(
      [process.execPath, '-e', `console.log(typeof require(${JSON.stringify(module)}).nativeInflate())`],
      { env: { ...process.env, ZIPFS_NATIVE: '0' } },
    );
    expect(probe.stdout.toString().trim()).toBe('undefined');
  });
});

for (const library of ['libdeflate', 'zlib'] as const) {
  const loaded = linux ? nativeLibrary(library) : null;
  const why = linux ? `not installed (apt-get install ${library === 'zlib' ? 'zlib1g' : 'libdeflate0'})` : 'not Linux';
  describe.skipIf(!loaded)(loaded ? library : `${library} (skipped: ${why})`, () => {
    const native = (data: Uint8Array, bound: number) => loaded!.inflate(data, bound)!;

    it('inflates a whole stream within the bound', () => {
      const result = native(deflated, text.length + 1);
      expect(result.kind).toBe('done');
      if (result.kind === 'done') expect(Buffer.from(result.output).equals(text)).toBe(true);
    });

    it('fills a bound of exactly the output', () => {
      const result = native(deflated, text.length);
      expect(result.kind === 'done' && result.output.length).toBe(text.length);
    });

    it('says overflow when the stream wants more room than the bound', () => {
      expect(native(deflated, text.length - 1).kind).toBe('overflow');
      // A bomb kernel: 10 MiB of zeros in a few KiB, bounded at 1,000 bytes.
      expect(native(zlib.deflateRawSync(Buffer.alloc(10 << 20)), 1000).kind).toBe('overflow');
    });

    it('says corrupt for damaged data, with the reason the library gives', () => {
      const damaged = Buffer.from(deflated);
      damaged[0] = 0xff; // block type 3: reserved, invalid in every stream
      const result = native(damaged, text.length + 1);
      const reason = library === 'zlib' ? 'invalid block type' : 'invalid or truncated data';
      expect(result).toStrictEqual({ kind: 'corrupt', reason });
    });

    it('says corrupt for a stream cut off before its end', () => {
      const result = native(deflated.subarray(0, deflated.length >> 1), text.length + 1);
      const reason = library === 'zlib' ? 'unexpected end of file' : 'invalid or truncated data';
      expect(result).toStrictEqual({ kind: 'corrupt', reason });
    });

    it('inflates an empty stream', () => {
      const result = native(zlib.deflateRawSync(Buffer.alloc(0)), 1);
      expect(result.kind === 'done' && result.output.length).toBe(0);
    });
  });
}
