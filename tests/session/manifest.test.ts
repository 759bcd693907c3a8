/**
 * The manifest written in batches of lines reads back record for record, across batch boundaries and non-ASCII names.
 */
import { afterAll, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MANIFEST_FORMAT, writeManifest, type EntryRecord, type SessionRecord } from '../../src/session/manifest.ts';
import { readManifest } from '../../src/session/read-manifest.ts';
import { lookAtManifest, readStatIndex } from '../../src/session/stat-index.ts';
import { sessionRecordProblem } from '../../src/session/manifest-check.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-manifest-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function entry(index: number): EntryRecord {
  const name = `folder-${index % 7}/naïve-文件-${index}-${'x'.repeat(index % 300)}.txt`;
  return {
    kind: 'entry',
    index,
    name,
    path: name,
    type: 'file',
    size: index,
    compressed_size: index,
    crc32: index * 7,
    method: 8,
    flags: 0x800,
    dos_time: 0,
    dos_date: 33,
    mtime_ms: 1_700_000_000_000 + index,
    mode: index % 2 ? 0o644 : null,
    external_attributes: 0,
    local_header_offset: index * 100,
    central_offset: index * 80,
    ...(index % 3 ? { extracted: { size: index, mtime_ms: 1, ctime_ms: 2, ino: index } } : {}),
  };
}

test('a session record larger than a batch (a zip of many symlinks) is written whole', () => {
  const symlinks = Array.from({ length: 60_000 }, (_, i) => `links/ссылка-${i}`);
  const session: SessionRecord = {
    kind: 'session',
    format: MANIFEST_FORMAT,
    id: 'id',
    name: 'links',
    source_path: '/tmp/links.zip',
    source: { size: 1, mtime_ms: 2, directory_sha256: 'ab' },
    created_at: '2026-11-23T00:00:00.000Z',
    file_count: 2,
    dir_count: 1,
    extracted_size_bytes: 1,
    symlinks,
  };
  const file = path.join(dir, 'links.jsonl');
  writeManifest(file, session, [entry(1), entry(2)]);
  expect(fs.statSync(file).size).toBeGreaterThan(1 << 20);
  const stamp = { size: fs.statSync(file).size, crc32: Bun.hash.crc32(fs.readFileSync(file)) };
  expect(readManifest(file)).toEqual({ session, entries: [entry(1), entry(2)] });
  expect(readManifest(file, { stamp: true })).toEqual({ session, entries: [entry(1), entry(2)], stamp });
  // What status checks the stat index against: the same stamp, and line 1 though it spans many chunks.
  const look = lookAtManifest(file)!;
  expect(look.stamp).toEqual(stamp);
  expect(JSON.parse(look.firstLine!)).toEqual(session);
});

test('a manifest of several MiB round-trips through writeManifest and readManifest', () => {
  const session: SessionRecord = {
    kind: 'session',
    format: MANIFEST_FORMAT,
    id: 'id',
    name: 'big',
    source_path: '/tmp/big.zip',
    source: { size: 1, mtime_ms: 2, directory_sha256: 'ab' },
    created_at: '2026-11-23T00:00:00.000Z',
    file_count: 9000,
    dir_count: 7,
    extracted_size_bytes: 1,
    symlinks: [],
  };
  const entries = Array.from({ length: 9000 }, (_, i) => entry(i));
  const file = path.join(dir, 'manifest.jsonl');
  writeManifest(file, session, entries);
  const text = fs.readFileSync(file, 'utf8');
  expect(text.length).toBeGreaterThan(3 * (1 << 20)); // more than one batch
  expect(text.endsWith('}\n')).toBe(true);
  expect(text.split('\n').length).toBe(entries.length + 2);
  const back = readManifest(file, { stamp: true });
  expect(back.session).toEqual(session);
  expect(back.entries).toEqual(entries);
  // The stat index written beside it names these bytes, and lists every entry's path and stat in order.
  expect(back.stamp).toEqual({ size: Buffer.byteLength(text), crc32: Bun.hash.crc32(fs.readFileSync(file)) });
  const index = readStatIndex(dir, back.stamp!)!;
  expect(index.paths).toEqual(entries.map((e) => e.path));
  expect([...index.size.subarray(0, 3)]).toEqual(entries.slice(0, 3).map((e) => e.size));
  expect(readStatIndex(dir, { ...back.stamp!, crc32: back.stamp!.crc32 ^ 1 })).toBeUndefined();
});

test('a session record names a name encoding this zipfs knows, or none', () => {
  const record = {
    kind: 'session',
    format: MANIFEST_FORMAT,
    id: 'i',
    name: 'n',
    source_path: '/z.zip',
    source: { size: 1, mtime_ms: 1, directory_sha256: '' },
    created_at: '',
    file_count: 0,
    dir_count: 0,
    extracted_size_bytes: 0,
    symlinks: [],
  };
  expect(sessionRecordProblem(record, MANIFEST_FORMAT)).toBeUndefined();
  expect(sessionRecordProblem({ ...record, name_encoding: 'cp866' }, MANIFEST_FORMAT)).toBeUndefined();
  expect(sessionRecordProblem({ ...record, name_encoding: 'klingon' }, MANIFEST_FORMAT)).toContain('name_encoding');
});
