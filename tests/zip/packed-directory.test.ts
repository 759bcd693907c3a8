/**
 * The packed directory (lazy sessions, issue 23) against the object reader,
 * on every archive of the corpus: the fields hot loops read in place are the
 * parsed entry's, the packed header check finds a fault exactly where the
 * parsed one does, and counting a directory gives what indexing it gives.
 */
import { describe, expect, it } from 'bun:test';
import {
  FileSource,
  entryLayoutFault,
  packedLayoutFault,
  readCentralDirectory,
  readPackedDirectory,
} from '../../src/zip/index.ts';
import { lazyEntriesOf } from '../../src/session/lazy-entries.ts';
import { countEntries } from '../../src/session/entry-count.ts';
import { entryPath, isPlainPath } from '../../src/rules/entry-paths.ts';
import { foldersOf } from '../../src/rules/item-type.ts';
import { ZipfsError } from '../../src/base/errors.ts';
import { corpusPath, loadCorpus } from '../helpers/corpus.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { BufferSource } from '../../src/zip/index.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Every corpus archive whose central directory can be read at all. */
const readable = loadCorpus().filter((file) => {
  const source = new FileSource(corpusPath(file.file));
  try {
    readPackedDirectory(source);
    return true;
  } catch {
    return false;
  } finally {
    source.close();
  }
});

describe('the packed directory', () => {
  it('reads some corpus archives', () => {
    expect(readable.length).toBeGreaterThan(10);
  });

  it.each(readable.map((file) => [file.file]))(
    'reads the fields of %s in place as the parsed entries have them',
    (file) => {
      const source = new FileSource(corpusPath(file));
      try {
        const whole = readCentralDirectory(source);
        const packed = readPackedDirectory(source);
        expect(packed.count).toBe(whole.entries.length);
        whole.entries.forEach((entry, i) => {
          expect(packed.localHeaderOffset(i)).toBe(entry.localHeaderOffset);
          expect(packed.compressedSize(i)).toBe(entry.compressedSize);
          expect(packed.uncompressedSize(i)).toBe(entry.uncompressedSize);
          expect([packed.flags(i), packed.method(i), packed.isSymlink(i)]).toEqual([
            entry.flags,
            entry.method,
            entry.isSymlink,
          ]);
          const plain = packed.plainName(i);
          if (plain !== undefined) expect(plain).toBe(entry.name);
          // Compared in place exactly where plainName reads the name, and then as the parsed name compares.
          expect(packed.hasPlainName(i, entry.name)).toBe(plain === undefined ? undefined : true);
          expect(packed.hasPlainName(i, `${entry.name}x`)).toBe(plain === undefined ? undefined : false);
          expect(packed.hasPlainName(i, entry.name.slice(0, -1))).toBe(plain === undefined ? undefined : false);
          expect(packed.record(i)).toEqual(source.read(entry.centralOffset, entry.centralLength));
        });
        // Where each entry's raw bytes end: the next local header in file order, or the directory.
        const ends = packed.rawEnds();
        const ordered = [...whole.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
        ordered.forEach((entry, k) =>
          expect(ends[entry.index]).toBe(ordered[k + 1]?.localHeaderOffset ?? whole.centralStart),
        );
      } finally {
        source.close();
      }
    },
  );

  it.each(readable.map((file) => [file.file]))(
    'finds a header fault in %s exactly where the parsed check does',
    (file) => {
      const source = new FileSource(corpusPath(file), 64 * 1024);
      try {
        const packed = readPackedDirectory(source);
        const order = packed.byOffset();
        for (let k = 0; k < order.length; k++) {
          const [i, next] = [order[k]!, order[k + 1]];
          const limit = next === undefined ? packed.centralStart : packed.localHeaderOffset(next);
          const parsed = entryLayoutFault(
            source,
            packed.entry(i),
            limit,
            packed.centralStart,
            next === undefined ? undefined : packed.entry(next),
          );
          const inPlace = packedLayoutFault(source, packed, i, limit, next);
          expect(inPlace?.message).toBe(parsed?.message);
        }
      } finally {
        source.close();
      }
    },
  );

  it.each(readable.map((file) => [file.file]))('counts the files and folders of %s as its index does', (file) => {
    const source = new FileSource(corpusPath(file));
    try {
      const packed = readPackedDirectory(source);
      let lazy;
      try {
        lazy = lazyEntriesOf(packed, {}).lazy;
      } catch (error) {
        if (error instanceof ZipfsError) return; // refused at a lazy open: never counted
        throw error;
      }
      const items = lazy.paths.map((path, i) => ({ path, type: lazy.type(i) }));
      expect(countEntries(packed)).toEqual({
        files: items.filter((item) => item.type !== 'dir').length,
        folders: foldersOf(items).size,
      });
    } finally {
      source.close();
    }
  });
});

describe("a lazy open's checks of names", () => {
  const check = (names: string[]) => {
    const bytes = rawZip(names.map((name) => ({ name, data: name.endsWith('/') ? '' : 'x' })));
    return () => lazyEntriesOf(readPackedDirectory(new BufferSource(bytes)), {});
  };

  it('places names that need normalising as an eager open does', () => {
    const { lazy } = check(['./a/./b.txt', 'c\\d.txt', 'e//f/', 'g/../h.txt'])();
    expect([...lazy.paths].sort()).toEqual(['a/b.txt', 'c/d.txt', 'e/f', 'h.txt']);
  });

  it('takes a name as its own path only where entryPath gives it back as it is', () => {
    const names = [
      'a.txt',
      'a/b/c.txt',
      'dir/',
      '...',
      'a/.../b',
      '.hidden',
      'x./y',
      'C:x',
      'c:/x',
      '1:x',
      './a',
      'a/./b',
      'a/../b',
      '..',
      '/abs',
      'a//b',
      'a\\b',
      'caf\u00e9',
      'a\u0000b',
      'dir//',
      `${'n'.repeat(255)}/x`,
      'n'.repeat(256),
    ];
    for (const name of names) {
      const bytes = Buffer.from(name, 'utf8');
      if (!isPlainPath(bytes, 0, bytes.length)) continue;
      expect([name, entryPath(name).path]).toEqual([name, name.replace(/\/$/, '')]);
    }
    const plain = names.filter((name) => isPlainPath(Buffer.from(name), 0, Buffer.byteLength(name)));
    expect(plain).toEqual([
      'a.txt',
      'a/b/c.txt',
      'dir/',
      '...',
      'a/.../b',
      '.hidden',
      'x./y',
      '1:x',
      `${'n'.repeat(255)}/x`,
    ]);
  });

  it('refuses a climb out, two entries at one path, and a file where a folder must be', () => {
    expect(check(['../x.txt'])).toThrow(expect.objectContaining({ code: 'PATH_TRAVERSAL' }));
    expect(check(['a.txt', './a.txt'])).toThrow(expect.objectContaining({ code: 'ZIP_INVALID' }));
    expect(check(['a', 'a/b/c.txt'])).toThrow(expect.objectContaining({ code: 'ZIP_INVALID' }));
  });

  it('notes what a folder folding case cannot hold, and refuses none of it', () => {
    const bytes = rawZip([
      { name: 'README.txt', data: '1' },
      { name: 'readme.txt', data: '2' },
      { name: 'other.txt', data: '3' },
    ]);
    const { facts } = lazyEntriesOf(readPackedDirectory(new BufferSource(bytes)), { caseInsensitive: true });
    expect(facts.unrepresentable?.map((u) => u.index).sort()).toEqual([0, 1]);
  });

  it("keeps a large directory's count of files and folders right across parents that repeat", () => {
    const names = ['top/', 'top/a/1.txt', 'top/a/2.txt', 'top/b/1.txt', 'top/a.txt', 'x.txt', 'deep/er/est/f.txt'];
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-packed-'));
    try {
      const file = path.join(dir, 'n.zip');
      fs.writeFileSync(file, rawZip(names.map((name) => ({ name, data: name.endsWith('/') ? '' : 'x' }))));
      const source = new FileSource(file);
      const packed = readPackedDirectory(source);
      expect(countEntries(packed)).toEqual({ files: 6, folders: 6 }); // top, top/a, top/b, deep, deep/er, deep/er/est
      source.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
