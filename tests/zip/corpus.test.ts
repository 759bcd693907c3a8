import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { ZipfsError } from '../../src/base/errors.ts';
import { FileSource, readCentralDirectory, readEntryData } from '../../src/zip/index.ts';
import { corpusPath, expectedContent, loadCorpus } from '../helpers/corpus.ts';

const corpus = loadCorpus();
const valid = corpus.filter((f) => f.valid);
const openFails = corpus.filter((f) => f.valid === false && f.error_stage === 'open');
const readFails = corpus.filter((f) => f.valid === false && f.error_stage === 'read');

function withSource<T>(file: string, fn: (source: FileSource) => T): T {
  const source = new FileSource(corpusPath(file));
  try {
    return fn(source);
  } finally {
    source.close();
  }
}

describe('zip reader on the shared corpus', () => {
  it('covers every archive in expectations.json', () => {
    expect(valid.length + openFails.length + readFails.length).toBe(corpus.length);
    expect(valid.length).toBeGreaterThan(40);
  });

  it.each(valid.map((f) => [f.file, f] as const))('reads %s as expected', (file, record) => {
    withSource(file, (source) => {
      const directory = readCentralDirectory(source);
      expect(
        directory.entries.map((e) => ({ name: e.name, size: e.uncompressedSize, is_dir: e.isDirectory })),
      ).toStrictEqual(record.entries!.map((e) => ({ name: e.name, size: e.size!, is_dir: e.is_dir! })));
      expect(directory.comment).toBe(record.comment ?? '');
      for (const [i, expected] of record.entries!.entries()) {
        const entry = directory.entries[i]!;
        expect(entry.isSymlink).toBe(expected.is_symlink ?? false);
        if (expected.is_dir) continue;
        const data = readEntryData(source, entry);
        const content = expectedContent(expected);
        if (content) expect(Buffer.from(data).equals(Buffer.from(content))).toBe(true);
        if (expected.sha256) expect(createHash('sha256').update(data).digest('hex')).toBe(expected.sha256);
        if (expected.mode_octal && entry.unixMode !== undefined)
          expect((entry.unixMode & 0o777).toString(8)).toBe(expected.mode_octal);
      }
    });
  });

  it.each(openFails.map((f) => [f.file] as const))('rejects %s when opening', (file) => {
    expect(() => withSource(file, readCentralDirectory)).toThrow(ZipfsError);
    try {
      withSource(file, readCentralDirectory);
    } catch (error) {
      expect((error as ZipfsError).code).toBe('ZIP_INVALID');
    }
  });

  it.each(readFails.map((f) => [f.file, f] as const))(
    'never returns the data of a damaged entry in %s',
    (file, record) => {
      withSource(file, (source) => {
        let directory;
        try {
          directory = readCentralDirectory(source);
        } catch (error) {
          expect((error as ZipfsError).code).toBe('ZIP_INVALID'); // rejecting the whole archive is allowed
          return;
        }
        const mustFail = record.entries!.map((e, i) => (e.read_must_fail ? i : -1)).filter((i) => i >= 0);
        const byName = (record.error_entries ?? [])
          .map((n) => directory.entries.findIndex((e) => e.name === n))
          .filter((i) => i >= 0);
        const failing = new Set([...mustFail, ...byName]);
        expect(failing.size).toBeGreaterThan(0);
        for (const index of failing) {
          const entry = directory.entries[index]!;
          expect(() => readEntryData(source, entry)).toThrow(ZipfsError);
        }
      });
    },
  );
});
