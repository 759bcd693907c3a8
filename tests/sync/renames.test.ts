/**
 * Rename detection in-process (renames.ts): which deleted entries and added
 * paths are one entry that moved. The deleted records are a real session's
 * (the zip opened by the binary), the additions real files stated on disk, and
 * the CRC-32 read from them, so only the pairing is under test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { EntryRecord } from '../../src/session/manifest.ts';
import { findRenames } from '../../src/sync/renames.ts';
import { observe } from '../../src/sync/workspace-scan.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { diffNow, openWith } from '../helpers/opened-session.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const RECORD_OLD = 'pkg/__init__.py,sha256=x,3\npkg-1.0.dist-info/RECORD,,\n';

/** A wheel-like zip: a package file, a .dist-info folder (with its folder entry) and a few loose files. */
function opened() {
  const zip = writeZip(
    box.dir,
    'pkg.whl',
    rawZip([
      { name: 'pkg/', data: '', method: 0 },
      { name: 'pkg/__init__.py', data: 'v=1' },
      { name: 'pkg-1.0.dist-info/', data: '', method: 0 },
      { name: 'pkg-1.0.dist-info/METADATA', data: 'Name: pkg\nVersion: 1.0\n' },
      { name: 'pkg-1.0.dist-info/RECORD', data: RECORD_OLD },
      { name: 'a.txt', data: 'same bytes' },
      { name: 'b.txt', data: 'same bytes' },
      { name: 'c.txt', data: 'ccc' },
    ]),
  );
  const { session, root } = openWith(box, zip, { name: 'pkg' });
  const records = new Map(diffNow(session).entries.map((entry) => [entry.path, entry]));
  return { root, records };
}

/** The records of these paths, as the workspace diff passes them (the deleted ones). */
const deletedOf = (records: Map<string, EntryRecord>, paths: string[]) => paths.map((p) => records.get(p)!);

/** What the diff passes for these workspace paths, read from the disk now. */
const additionsAt = (root: string, paths: string[]) =>
  paths.map((p) => ({ path: p, observed: observe(fs.lstatSync(path.join(root, p))) }));

const crcAt = (root: string) => (relative: string) => {
  try {
    return zlib.crc32(fs.readFileSync(path.join(root, relative))) >>> 0;
  } catch {
    return undefined;
  }
};

const move = (root: string, from: string, to: string) => {
  fs.mkdirSync(path.dirname(path.join(root, to)), { recursive: true });
  fs.renameSync(path.join(root, from), path.join(root, to));
};

describe('findRenames', () => {
  it('pairs a file that moved with its bytes unchanged, and nothing else', () => {
    const { root, records } = opened();
    move(root, 'c.txt', 'moved/c.txt');
    fs.writeFileSync(path.join(root, 'new.txt'), 'xyz'); // the same size as c.txt, other bytes
    const renames = findRenames(
      deletedOf(records, ['c.txt']),
      additionsAt(root, ['moved', 'moved/c.txt', 'new.txt']),
      crcAt(root),
    );
    expect(renames).toStrictEqual([
      { index: records.get('c.txt')!.index, from: 'c.txt', to: 'moved/c.txt', modified: false },
    ]);
  });

  it('takes bytes of the same size but another CRC-32 for a new file, not a rename', () => {
    const { root, records } = opened();
    fs.rmSync(path.join(root, 'c.txt'));
    fs.writeFileSync(path.join(root, 'd.txt'), 'ddd');
    expect(findRenames(deletedOf(records, ['c.txt']), additionsAt(root, ['d.txt']), crcAt(root))).toStrictEqual([]);
  });

  it('of several deleted entries with these bytes, pairs the one of the same name first', () => {
    const { root, records } = opened();
    move(root, 'b.txt', 'sub/b.txt');
    fs.rmSync(path.join(root, 'a.txt'));
    const renames = findRenames(deletedOf(records, ['a.txt', 'b.txt']), additionsAt(root, ['sub/b.txt']), crcAt(root));
    expect(renames.map((r) => [r.from, r.to])).toStrictEqual([['b.txt', 'sub/b.txt']]);
  });

  it('pairs each deleted entry and each added path once', () => {
    const { root, records } = opened();
    move(root, 'a.txt', 'x/a.txt');
    fs.copyFileSync(path.join(root, 'x/a.txt'), path.join(root, 'x/copy.txt'));
    const renames = findRenames(
      deletedOf(records, ['a.txt']),
      additionsAt(root, ['x/a.txt', 'x/copy.txt']),
      crcAt(root),
    );
    expect(renames.map((r) => [r.from, r.to])).toStrictEqual([['a.txt', 'x/a.txt']]);
  });

  it("moves a folder with its files: a changed file of the same name and the folder's own entry move too", () => {
    const { root, records } = opened();
    move(root, 'pkg-1.0.dist-info', 'pkg-1.1.dist-info');
    // its hashes change
    fs.writeFileSync(path.join(root, 'pkg-1.1.dist-info/RECORD'), RECORD_OLD.replace('1.0', '1.1'));
    const renames = findRenames(
      deletedOf(records, ['pkg-1.0.dist-info', 'pkg-1.0.dist-info/METADATA', 'pkg-1.0.dist-info/RECORD']),
      additionsAt(root, ['pkg-1.1.dist-info', 'pkg-1.1.dist-info/METADATA', 'pkg-1.1.dist-info/RECORD']),
      crcAt(root),
    );
    const byFrom = Object.fromEntries(renames.map((r) => [r.from, [r.to, r.modified]]));
    expect(byFrom).toStrictEqual({
      'pkg-1.0.dist-info/METADATA': ['pkg-1.1.dist-info/METADATA', false],
      'pkg-1.0.dist-info/RECORD': ['pkg-1.1.dist-info/RECORD', true],
      'pkg-1.0.dist-info': ['pkg-1.1.dist-info', false],
    });
  });

  it('infers no folder move from a file moved out of the root: its changed neighbours stay deleted and added', () => {
    const { root, records } = opened();
    move(root, 'c.txt', 'docs/c.txt');
    move(root, 'a.txt', 'docs/a.txt');
    fs.writeFileSync(path.join(root, 'docs/a.txt'), 'other bytes, other size');
    const renames = findRenames(
      deletedOf(records, ['a.txt', 'c.txt']),
      additionsAt(root, ['docs', 'docs/a.txt', 'docs/c.txt']),
      crcAt(root),
    );
    expect(renames.map((r) => [r.from, r.to])).toStrictEqual([['c.txt', 'docs/c.txt']]);
  });

  it('pairs nothing with an addition it cannot read (gone, or swapped since the scan)', () => {
    const { root, records } = opened();
    move(root, 'c.txt', 'moved.txt');
    const renames = findRenames(deletedOf(records, ['c.txt']), additionsAt(root, ['moved.txt']), () => undefined);
    expect(renames).toStrictEqual([]);
  });
});
