/**
 * The one-pass lookups of a lazy session (lazy-lookup.ts, issue 30 point 3) against the index of
 * every path they stand in for (LazyEntries), on every corpus archive a lazy open accepts: the
 * same entry for a path, every entry near a path among those visited, the same answer to whether
 * folders are stored.
 */
import { describe, expect, it } from 'bun:test';
import { FileSource, readPackedDirectory } from '../../src/zip/index.ts';
import { lazyEntriesOf } from '../../src/session/lazy-entries.ts';
import { findPlaced, forEachNear, storesFolders } from '../../src/session/lazy-lookup.ts';
import { ZipfsError } from '../../src/base/errors.ts';
import { corpusPath, loadCorpus } from '../helpers/corpus.ts';

/** Each archive's packed directory and index, where a lazy open takes it. */
const opened = loadCorpus().flatMap((file) => {
  const source = new FileSource(corpusPath(file.file));
  try {
    const packed = readPackedDirectory(source);
    return [{ file: file.file, packed, lazy: lazyEntriesOf(packed, {}).lazy }];
  } catch (error) {
    if (error instanceof ZipfsError) return [];
    throw error;
  } finally {
    source.close();
  }
});

const near = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

describe('the one-pass lookups', () => {
  it('have corpus archives to run on', () => {
    expect(opened.length).toBeGreaterThan(10);
  });

  it.each(opened.map((o) => [o.file, o]))('find what the index finds in %s', (_file, { packed, lazy }) => {
    const paths = lazy.paths.filter((p) => p !== '');
    // Each path, its folders, and paths no entry has: one at a time, and all together.
    const asked = [
      ...new Set([
        ...paths.slice(0, 40),
        ...paths.slice(0, 40).flatMap((p) => (p.includes('/') ? [p.slice(0, p.lastIndexOf('/'))] : [])),
        'no such entry',
        `${paths[0] ?? 'x'}/below`,
      ]),
    ];
    for (const relative of asked) {
      const index = lazy.indexOf(relative);
      const found = findPlaced(packed, new Set([relative])).get(relative);
      expect({ relative, found }).toEqual({
        relative,
        found: index < 0 ? undefined : { index, type: lazy.type(index) },
      });
      const visited = new Set<string>();
      forEachNear(packed, [relative], new Set(), (path) => void visited.add(path));
      for (const path of lazy.paths)
        if (near(path, relative))
          expect({ relative, path, seen: visited.has(path) }).toEqual({ relative, path, seen: true });
    }
    const together = findPlaced(packed, new Set(asked.slice(0, 32)));
    for (const relative of asked.slice(0, 32)) expect(together.get(relative)?.index ?? -1).toBe(lazy.indexOf(relative));
    expect(storesFolders(packed)).toBe(lazy.storesFolders());
  });
});
