import { describe, expect, it } from 'bun:test';
import { BufferSource, LayoutError, checkLayout, readCentralDirectory } from '../../src/zip/index.ts';
import { patchCentral, rawZip } from '../helpers/raw-zip.ts';
import { needs } from '../helpers/tools.ts';

const sample = () =>
  rawZip([
    { name: 'a.txt', data: 'alpha'.repeat(10) },
    { name: 'dir/', data: '', method: 0 },
    { name: 'dir/b.txt', data: 'beta' },
  ]);

function layoutOf(bytes: Uint8Array): LayoutError | undefined {
  const source = new BufferSource(bytes);
  try {
    checkLayout(source, readCentralDirectory(source));
    return undefined;
  } catch (error) {
    if (error instanceof LayoutError) return error;
    throw error;
  }
}

describe('checkLayout', () => {
  it('accepts what honest writers write, prefix stubs included', () => {
    expect(layoutOf(sample())).toBeUndefined();
    expect(layoutOf(rawZip([{ name: 'x', data: 'y' }], { prefix: new Uint8Array(100) }))).toBeUndefined();
    expect(layoutOf(rawZip([]))).toBeUndefined();
  });

  it.each([
    [
      'a folder entry past the end of the file',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'localHeaderOffset', b.length + 1),
      false,
      /outside the entries' area/,
    ],
    [
      'a folder entry whose size runs into the next entry',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'compressedSize', 40),
      true,
      /running \d+ bytes into Entry "dir\/b.txt"/,
    ],
    [
      'the last entry running into the central directory',
      (b: Uint8Array) => patchCentral(b, 'dir/b.txt', 'compressedSize', 200),
      false,
      /into the central directory/,
    ],
    [
      'two entries at one offset',
      (b: Uint8Array) => patchCentral(b, 'dir/b.txt', 'localHeaderOffset', 0),
      true,
      /running/,
    ],
  ])('finds %s', (_what, damage, overlap, message) => {
    const error = layoutOf(damage(sample()));
    expect(error?.overlap).toBe(overlap);
    expect(error?.message).toMatch(message);
  });

  it('finds a local header that is not one', () => {
    const bytes = Buffer.from(sample());
    bytes.writeUInt32LE(0, bytes.indexOf('dir/') - 30); // the folder entry's signature
    expect(layoutOf(bytes)?.message).toMatch(/where there is no local header/);
  });

  it.each([
    ['another name', (b: Buffer) => b.write('X', b.indexOf('dir/b.txt'))],
    ['another CRC-32', (b: Buffer) => b.writeUInt32LE(0xdeadbeef, b.indexOf('dir/b.txt') - 30 + 14)],
    ['other sizes', (b: Buffer) => b.writeUInt32LE(99, b.indexOf('dir/b.txt') - 30 + 22)],
    [
      'sizes of 0xFFFFFFFF but no zip64 field',
      (b: Buffer) => b.writeUInt32LE(0xffffffff, b.indexOf('dir/b.txt') - 30 + 18),
    ],
    ['other flags', (b: Buffer) => b.writeUInt16LE(0x0808 | 0x0001, b.indexOf('dir/b.txt') - 30 + 6)],
    ['another compression method', (b: Buffer) => b.writeUInt16LE(0, b.indexOf('dir/b.txt') - 30 + 8)],
  ])(
    'finds a local header that disagrees with its central record: %s (readers trust one or the other)',
    (what, damage) => {
      const bytes = Buffer.from(sample());
      damage(bytes);
      expect(layoutOf(bytes)?.message).toContain(what.split(' but')[0]!);
    },
  );

  it('finds a version needed past the specification', () => {
    const bytes = Buffer.from(sample());
    const central = bytes.lastIndexOf('dir/b.txt') - 46;
    bytes.writeUInt16LE(70, central + 6); // "version needed" 7.0
    expect(layoutOf(bytes)?.message).toContain('needs zip version 7');
  });

  it.skipIf(needs('python3').skip)(
    `finds an extra field whose size runs past its block, in either header${needs('python3').why}`,
    () => {
      const made = Bun.spawnSync([
        'python3',
        '-c',
        "import io,sys,zipfile\nb=io.BytesIO()\nz=zipfile.ZipFile(b,'w')\ni=zipfile.ZipInfo('e.txt')\n" +
          "i.extra=b'\\xfe\\xca\\x04\\x00abcd'\nz.writestr(i,'x')\nz.close()\nsys.stdout.buffer.write(b.getvalue())",
      ]);
      const good = Buffer.from(made.stdout);
      expect(layoutOf(good)).toBeUndefined();
      for (const at of [good.indexOf('e.txt') + 5, good.lastIndexOf('e.txt') + 5]) {
        const bytes = Buffer.from(good);
        bytes.writeUInt16LE(200, at + 2); // the field's size, past the 8-byte block
        expect(layoutOf(bytes)?.message).toContain('malformed extra-field block');
      }
    },
  );
});
