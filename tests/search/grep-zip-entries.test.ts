import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../../src/base/errors.ts';
import { grepWorkspace, type GrepRequest } from '../../src/search/grep.ts';
import type { GrepZipEntry } from '../../src/search/grep-types.ts';
import { FileSource, readCentralDirectory } from '../../src/zip/index.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { wholeFileGrep } from '../helpers/whole-file-grep.ts';

let dir: string;
let root: string;
let zipPath: string;
let entries: Map<string, GrepZipEntry>;

const big = Array.from({ length: 120_000 }, (_, i) =>
  i % 1000 === 3 ? `${i} needle in a large entry` : `${i} hay`,
).join('\n');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-grep-zip-'));
  root = path.join(dir, 'contents');
  fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(root, 'a.txt'), 'needle on disk\n');
  fs.writeFileSync(path.join(root, 'docs', 'b.txt'), 'needle in docs on disk\n');
  fs.writeFileSync(path.join(root, 'shadow.txt'), 'needle, the copy on disk\n');
  const bytes = Buffer.from(
    rawZip([
      { name: 'a/inner.txt', data: 'one\nneedle in the zip\nthree\n' },
      { name: 'big.txt', data: big },
      { name: 'docs/c.md', data: 'stored\r\nneedle stored\r\n', method: 0 },
      { name: 'image.bin', data: new Uint8Array([0x89, 0x50, 0, 0, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]) },
      { name: 'shadow.txt', data: 'needle, the copy in the zip\n' },
      // Inflates to far more than the 100 bytes both headers declare.
      { name: 'z/bomb.txt', data: 'needle\n'.repeat(100_000), declaredSize: 100 },
      { name: 'z/crc.txt', data: 'needle crc-check-content\n', method: 0 },
    ]),
  );
  // One byte of the stored entry changed after its CRC was written: a damaged archive.
  bytes[bytes.indexOf('crc-check-content')] = 'C'.charCodeAt(0);
  zipPath = path.join(dir, 'lazy.zip');
  fs.writeFileSync(zipPath, bytes);
  const source = new FileSource(zipPath);
  try {
    entries = new Map(
      readCentralDirectory(source).entries.map(
        ({ name, flags, method, compressedSize, uncompressedSize, crc32, localHeaderOffset }) => [
          name,
          {
            file: name,
            zipPath,
            entry: { name, flags, method, compressedSize, uncompressedSize, crc32, localHeaderOffset },
          },
        ],
      ),
    );
  } finally {
    source.close();
  }
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const request = (names: string[], more: Partial<GrepRequest> = {}): GrepRequest => ({
  root,
  start: '',
  pattern: 'needle',
  ignoreCase: false,
  maxResults: 1000,
  contextLines: 0,
  countAll: true,
  namesOnly: false,
  encoding: 'utf-8',
  binary: false,
  budgetMs: 60_000,
  zipEntries: names.map((name) => entries.get(name)!),
  ...more,
});

const healthy = ['a/inner.txt', 'big.txt', 'docs/c.md', 'image.bin', 'shadow.txt'];
const files = (result: { matches: { file: string }[] }) => [...new Set(result.matches.map((m) => m.file))];

describe('grep of entries read from a zip (lazy sessions)', () => {
  it('searches them among the workspace files, in the order the workspace is walked', async () => {
    const result = await grepWorkspace(request(healthy));
    // "a/" sorts before "a.txt", as listFiles walks; the file on disk wins over the zip's copy of shadow.txt.
    expect(files(result)).toStrictEqual(['a/inner.txt', 'a.txt', 'big.txt', 'docs/b.txt', 'docs/c.md', 'shadow.txt']);
    expect(result.matches.find((m) => m.file === 'shadow.txt')!.line_content).toBe('needle, the copy on disk');
    expect(result.matches.find((m) => m.file === 'docs/c.md')).toStrictEqual({
      file: 'docs/c.md',
      line_number: 2,
      line_content: 'needle stored',
      column: 1,
    });
    expect(result).toMatchObject({ files_searched: 7, skipped_binary: 1 }); // image.bin; shadow.txt once
  });

  it('gives the same lines as the whole-file search for a large deflated entry', async () => {
    const result = await grepWorkspace(request(['big.txt'], { start: 'big.txt', contextLines: 2 }));
    const whole = wholeFileGrep('big.txt', Buffer.from(big), {
      pattern: 'needle',
      flags: '',
      contextLines: 2,
      encoding: 'utf-8',
      binary: false,
    });
    expect(result.matches).toStrictEqual(whole.matches);
    expect(result.matches).toHaveLength(120);
  });

  it('applies the glob and the start folder to them as to workspace files', async () => {
    expect(files(await grepWorkspace(request(healthy, { glob: '*.md' })))).toStrictEqual(['docs/c.md']);
    expect(files(await grepWorkspace(request(healthy, { start: 'docs' })))).toStrictEqual(['docs/b.txt', 'docs/c.md']);
    expect(files(await grepWorkspace(request(healthy, { start: 'a' })))).toStrictEqual(['a/inner.txt']);
  });

  it('searches a binary entry on request, with the byte offset', async () => {
    const result = await grepWorkspace(request(['image.bin'], { glob: '*.bin', binary: true }));
    expect(result.matches).toStrictEqual([
      { file: 'image.bin', line_number: 0, line_content: 'needle', byte_offset: 4 },
    ]);
  });

  it.each([
    [
      'an entry whose headers lie about its size',
      'z/bomb.txt',
      'ZIP_BOMB_DETECTED',
      /inflates to more than the 100 bytes its header declares/,
    ],
    ['an entry whose data does not match its CRC', 'z/crc.txt', 'ZIP_INVALID', /CRC-32 mismatch/],
  ])('rejects the search with the ZipfsError for %s', async (_, name, code, message) => {
    const error = await grepWorkspace(request([...healthy, name])).catch((thrown) => thrown);
    expect(error).toBeInstanceOf(ZipfsError);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(name);
  });

  it('rejects with ZIP_NOT_FOUND when the zip is gone', async () => {
    const gone = { ...entries.get('a/inner.txt')!, zipPath: path.join(dir, 'gone.zip') };
    const error = await grepWorkspace({ ...request([]), zipEntries: [gone] }).catch((thrown) => thrown);
    expect([error.constructor, error.code]).toStrictEqual([ZipfsError, 'ZIP_NOT_FOUND']);
  });
});
