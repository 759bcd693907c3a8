/**
 * Reusing an entry's manifest line (src/session/manifest-line-reuse.ts): only a record read from a line that ends with
 * its offsets, granted (as written-item.ts's placed grants one it set nothing of but the offsets), and still with the
 * index and stat it was read with (that very object) is written from the text read; anything else is encoded whole,
 * offsets last. The lines read here carry a space JSON.stringify would not write (`"mode": 420`), so a reused line
 * shows it kept it.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MANIFEST_FORMAT, writeManifest, type EntryRecord, type SessionRecord } from '../../src/session/manifest.ts';
import { readManifestLines } from '../../src/session/manifest-lines.ts';
import { grantLineReuse } from '../../src/session/manifest-line-reuse.ts';
import { lookAtManifest, readStatIndex } from '../../src/session/stat-index.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-line-reuse-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const session: SessionRecord = {
  kind: 'session',
  format: MANIFEST_FORMAT,
  id: 'id',
  name: 'reuse',
  source_path: '/tmp/reuse.zip',
  source: { size: 1, mtime_ms: 2, directory_sha256: 'ab' },
  created_at: '2026-11-28T00:00:00.000Z',
  file_count: 4,
  dir_count: 0,
  extracted_size_bytes: 1,
  symlinks: [],
};

/** Entry `i`'s line in the new field order, with a space after "mode": (valid JSON, not JSON.stringify's). */
function line(i: number, name: string, offsets = { local: i * 100, central: 9000 + i * 50 }): string {
  const extracted = i % 2 ? `,"extracted":{"size":${i},"mtime_ms":1,"ctime_ms":2,"ino":${i}}` : '';
  return (
    `{"kind":"entry","index":${i},"name":${JSON.stringify(name)},"path":${JSON.stringify(name)},"type":"file",` +
    `"size":${i},"compressed_size":${i},"crc32":${i * 7},"method":8,"flags":2048,"dos_time":0,"dos_date":33,` +
    `"mtime_ms":1700000000000,"mode": 420,"external_attributes":0${extracted},` +
    `"local_header_offset":${offsets.local},"central_offset":${offsets.central}}`
  );
}

const NAMES = ['a.txt', 'naïve-文件.txt', 'trick,"local_header_offset":1,"central_offset":2}', 'd.txt', 'e.txt'];

/** A manifest of `lines` read back: its records, and where it is. */
function readBack(name: string, lines: string[]): { file: string; entries: EntryRecord[] } {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${JSON.stringify(session)}\n${lines.join('\n')}\n`);
  return { file, entries: readManifestLines(file).entries };
}

/** Sets new offsets, as placed does, then grants the reuse. */
function placeAndGrant(record: EntryRecord, shift: number): void {
  record.local_header_offset += shift;
  record.central_offset += shift;
  grantLineReuse(record);
}

/** The lines of the manifest at `file`, and each checked to parse to `entries`' record with its offsets last. */
function writtenLines(file: string, entries: EntryRecord[]): string[] {
  writeManifest(file, session, entries);
  const lines = fs.readFileSync(file, 'utf8').split('\n').slice(1, -1);
  expect(lines.length).toBe(entries.length);
  lines.forEach((text, i) => {
    const record = JSON.parse(text);
    expect(record).toEqual(JSON.parse(JSON.stringify(entries[i])));
    expect(Object.keys(record).slice(-2)).toStrictEqual(['local_header_offset', 'central_offset']);
  });
  return lines;
}

describe('a line written again', () => {
  test('is the text read with the new offsets where the reuse was granted, and encoded whole elsewhere', () => {
    const { file, entries } = readBack(
      'granted.jsonl',
      NAMES.map((name, i) => line(i, name)),
    );
    for (const record of entries.slice(0, 4)) placeAndGrant(record, 2 ** 33); // offsets past 4 GiB
    entries[4]!.local_header_offset += 7; // not granted
    const lines = writtenLines(file, entries);
    expect(lines.slice(0, 4).map((text) => text.includes('"mode": 420'))).toStrictEqual([true, true, true, true]);
    expect(lines[4]).toBe(JSON.stringify(entries[4]));
    expect(lines[3]).toEndWith(`"local_header_offset":${300 + 2 ** 33},"central_offset":${9150 + 2 ** 33}}`);
    // The stat index names the bytes written.
    const stamp = lookAtManifest(file)!.stamp;
    expect(stamp).toEqual({ size: fs.statSync(file).size, crc32: Bun.hash.crc32(fs.readFileSync(file)) });
    expect(readStatIndex(dir, stamp)?.paths).toStrictEqual(NAMES);
    // A grant is spent by the write: a second write encodes them whole.
    expect(writtenLines(file, entries).some((text) => text.includes('"mode": 420'))).toBe(false);
  });

  test('is encoded whole where the stat, the index or the object is not the one read', () => {
    const { file, entries } = readBack(
      'changed.jsonl',
      NAMES.map((name, i) => line(i, name)),
    );
    const [first, second, third, fourth] = entries as [EntryRecord, EntryRecord, EntryRecord, EntryRecord];
    placeAndGrant(first, 1);
    placeAndGrant(second, 1);
    second.extracted = { size: 99, mtime_ms: 3, ctime_ms: 4, ino: 1 }; // changed after its grant
    third.index = 9; // no longer at the index read
    placeAndGrant(third, 1);
    placeAndGrant(fourth, 1);
    const copy = { ...fourth, crc32: 5 }; // a copy of a granted record, written in its place
    entries[4]!.extracted = { size: 4, mtime_ms: 5, ctime_ms: 6, ino: 7 }; // a stat where the line had none
    const lines = writtenLines(file, [first, second, third, copy, entries[4]!]); // offsets last in each
    expect(lines[0]).toContain('"mode": 420');
    expect(lines[1]).toBe(JSON.stringify(second));
    expect(lines[1]).toContain('"extracted":{"size":99');
    expect(lines[2]).toBe(JSON.stringify(third));
    expect(lines[3]).toBe(JSON.stringify(copy));
    expect(lines[4]).toContain('"extracted":{"size":4,');
  });

  test('writes each offset as JSON.stringify does, at every number of digits', () => {
    const { file, entries } = readBack(
      'digits.jsonl',
      NAMES.map((name, i) => line(i, name)),
    );
    const values = [0, 9, 10, 99_999, 2 ** 53 - 1];
    entries.forEach((record, i) => {
      record.local_header_offset = values[i]!;
      record.central_offset = values[values.length - 1 - i]!;
      grantLineReuse(record);
    });
    const lines = writtenLines(file, entries);
    lines.forEach((text, i) => {
      expect(text).toContain('"mode": 420');
      expect(text).toEndWith(`"local_header_offset":${values[i]},"central_offset":${values[values.length - 1 - i]}}`);
    });
  });

  test('of the older field order (offsets before the stat) is written in the new order, granted or not', () => {
    const older = NAMES.map((name, i) => {
      const { extracted, ...rest } = JSON.parse(line(i, name));
      return JSON.stringify(extracted === undefined ? rest : { ...rest, extracted });
    });
    const { file, entries } = readBack('older.jsonl', older);
    for (const record of entries) placeAndGrant(record, 5);
    const lines = writtenLines(file, entries);
    expect(lines.some((text) => text.includes('"mode": 420'))).toBe(false);
  });

  test('is never reused when the lines cannot be told record for record (a blank line, a line of spaces)', () => {
    const lines = NAMES.map((name, i) => line(i, name));
    for (const [name, text] of [
      ['blank.jsonl', [...lines.slice(0, 2), '', ...lines.slice(2)]],
      ['spaces.jsonl', [...lines.slice(0, 2), '   ', ...lines.slice(2)]],
    ] as const) {
      const { file, entries } = readBack(name, [...text]);
      for (const record of entries) placeAndGrant(record, 5);
      expect(writtenLines(file, entries).some((written) => written.includes('"mode": 420'))).toBe(false);
    }
  });
});
