/**
 * The source state in process (source-state.ts): the streamed fingerprint is
 * the hash open and sync record (so sessions made before it still match), a
 * same-size rewrite with the mtime put back is a change, a copy of the same
 * archive is none, and openBase hands out the descriptor it checked.
 */
import { afterAll, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileSource, readPackedDirectory } from '../../src/zip/index.ts';
import {
  fingerprintOf,
  fingerprintSource,
  openBase,
  sameArchive,
  sourceState,
} from '../../src/session/source-state.ts';
import type { SessionRecord } from '../../src/session/manifest.ts';
import { rawZip } from '../helpers/raw-zip.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-source-state-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const archive = (version: string, prefix?: Uint8Array) =>
  rawZip(
    [
      { name: 'a.txt', data: 'alpha\n', method: 0 },
      { name: 'v.txt', data: `${version}\n`, method: 0 },
    ],
    { comment: 'c', prefix },
  );

function recordOf(zip: string): SessionRecord {
  const source = new FileSource(zip);
  try {
    return { source_path: zip, source: fingerprintSource(source, readPackedDirectory(source)) } as SessionRecord;
  } finally {
    source.close();
  }
}

test.each([
  ['a plain archive', undefined],
  ['one behind a self-extractor stub', new Uint8Array(333).fill(7)],
])('the streamed fingerprint of %s is the recorded one', (_what, prefix) => {
  const zip = path.join(dir, `plain-${prefix ? 'stub' : 'none'}.zip`);
  fs.writeFileSync(zip, archive('v1', prefix));
  const source = new FileSource(zip, 64 << 10);
  try {
    expect(fingerprintOf(source)).toEqual(fingerprintSource(source, readPackedDirectory(source)));
  } finally {
    source.close();
  }
});

test('a rewrite of the same size with the mtime put back is a change; a copy of the same archive is none', () => {
  const zip = path.join(dir, 'app.zip');
  fs.writeFileSync(zip, archive('v1'));
  const record = recordOf(zip);
  const { mtime } = fs.statSync(zip);
  fs.writeFileSync(zip, archive('v2'));
  fs.utimesSync(zip, mtime, mtime);
  expect(fs.statSync(zip).size).toBe(record.source.size);
  expect(sourceState(record)).toBe('changed');
  expect(openBase(record).state).toBe('changed');
  fs.writeFileSync(zip, archive('v1'));
  fs.utimesSync(zip, new Date('2031-01-01'), new Date('2031-01-01'));
  expect(sourceState(record)).toBe('unchanged');
  expect(sameArchive(recordOf(zip).source, record.source)).toBe(true);
});

test('openBase reads through the descriptor it checked, whatever is renamed over the path after', () => {
  const zip = path.join(dir, 'base.zip');
  fs.writeFileSync(zip, archive('v1'));
  const record = recordOf(zip);
  const base = openBase(record);
  expect(base.state).toBe('unchanged');
  fs.writeFileSync(path.join(dir, 'other.zip'), archive('other archive'));
  fs.renameSync(path.join(dir, 'other.zip'), zip);
  try {
    expect(fingerprintOf(base.source!)?.directory_sha256).toBe(record.source.directory_sha256);
    expect(Buffer.from(base.source!.read(0, base.source!.size)).includes(Buffer.from('v1\n'))).toBe(true);
  } finally {
    base.source?.close();
  }
  expect(openBase(record).state).toBe('changed'); // the path names another archive now
  expect(openBase({ ...record, source_path: path.join(dir, 'gone.zip') }).state).toBe('missing');
});
