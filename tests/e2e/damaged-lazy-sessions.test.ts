/**
 * A lazy session's own files, damaged (issue 28, item 5): its central.bin cut
 * off, garbage, swapped for another session's or with bytes after it; its
 * manifest's entry count lowered, an entry line pointing at another entry,
 * naming an index past the directory (10^9: sync looped to it) or one index
 * twice, or placing the directory elsewhere in the zip. Each used to give a partial listing, a sync that lost or
 * doubled
 * entries, or a hang; each is SESSION_DAMAGED now, and the zip is untouched.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { sha } from '../helpers/zip-compare.ts';

const ENTRIES: RawEntry[] = [
  { name: 'docs/', unixMode: 0o40755 },
  { name: 'docs/a.txt', data: 'alpha\n', method: 8, unixMode: 0o100644 },
  { name: 'docs/b.txt', data: 'beta\n', method: 8, unixMode: 0o100644 },
  { name: 'logs/app.log', data: 'log line\n'.repeat(50), method: 8, unixMode: 0o100644 },
  { name: 'top.txt', data: 'top\n', method: 0, unixMode: 0o100644 },
];

let box: ReturnType<typeof sandbox>;
let zip: string;
let dir: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'lazy.zip', rawZip(ENTRIES));
  expect(box.run(['open', zip, '--lazy', '--name', 'big']).code).toBe(0);
  dir = path.join(box.home, 'workspaces', 'big');
  // One entry extracted (a manifest line), one new file (something for sync to write).
  expect(box.run(['extract', 'docs/a.txt', '-s', 'big']).code).toBe(0);
  fs.writeFileSync(path.join(dir, 'contents', 'new.txt'), 'new\n');
});
afterEach(() => box.cleanup());

const central = () => path.join(dir, 'central.bin');
const manifest = () => path.join(dir, 'manifest.jsonl');

function editManifest(change: (lines: string[]) => string[]): void {
  fs.writeFileSync(manifest(), change(fs.readFileSync(manifest(), 'utf8').split('\n')).join('\n'));
}

/** The session record (line 1), changed. */
function editRecord(change: (record: any) => void): void {
  editManifest(([first, ...rest]) => {
    const record = JSON.parse(first!);
    change(record);
    return [JSON.stringify(record), ...rest];
  });
}

/** The entry line of `docs/a.txt`, changed. */
function editLine(change: (line: any) => any): void {
  editManifest((lines) =>
    lines.map((line) => (line.includes('"path":"docs/a.txt"') ? JSON.stringify(change(JSON.parse(line))) : line)),
  );
}

function expectDamaged(args: string[], detail: RegExp): void {
  const result = box.run([...args, '-s', 'big', '--json'], { timeoutMs: 30_000 });
  expect({ args, code: result.code, error: result.json?.error?.code }).toEqual({
    args,
    code: ERROR_CODES.SESSION_DAMAGED.exit,
    error: 'SESSION_DAMAGED',
  });
  expect(result.json.error.message).toMatch(detail);
  expect(result.json.error.message).toContain('close big --force');
}

const otherCentral = (): Buffer => {
  const other = writeZip(box.dir, 'other.zip', rawZip([{ name: 'x.txt', data: 'x\n' }, ...ENTRIES.slice(1)]));
  expect(box.run(['open', other, '--lazy', '--name', 'other']).code).toBe(0);
  return fs.readFileSync(path.join(box.home, 'workspaces', 'other', 'central.bin'));
};

describe('a lazy session whose central.bin is damaged', () => {
  it.each([
    [
      'cut off',
      () => fs.truncateSync(central(), fs.statSync(central()).size - 30),
      /central\.bin is \d+ bytes, where the session recorded \d+/,
    ],
    [
      'garbage of the same length',
      () => fs.writeFileSync(central(), Buffer.alloc(fs.statSync(central()).size, 0x5a)),
      /central\.bin is not the directory the session recorded/,
    ],
    [
      "swapped for another session's",
      () => fs.writeFileSync(central(), otherCentral()),
      /central\.bin (is \d+ bytes|is not the directory)/,
    ],
    ['followed by extra bytes', () => fs.appendFileSync(central(), Buffer.alloc(50)), /central\.bin is \d+ bytes/],
  ])(
    '(%s) is SESSION_DAMAGED for ls -r, read, grep, extract and sync; the zip is untouched',
    (_what, damage, detail) => {
      const before = sha(zip);
      damage();
      for (const args of [['ls', '-r'], ['read', 'top.txt'], ['grep', 'beta'], ['extract'], ['sync']])
        expectDamaged(args, detail);
      expect(sha(zip)).toBe(before);
      expect(box.run(['close', 'big', '--force', '--json']).json.closed).toBe(true);
    },
  );

  it('from an older zipfs (no length or CRC recorded) is still checked by its entry count', () => {
    editRecord((record) => {
      delete record.lazy.central_bytes;
      delete record.lazy.central_crc32;
    });
    fs.truncateSync(central(), fs.statSync(central()).size - 30);
    for (const args of [['ls', '-r'], ['sync']]) expectDamaged(args, /central\.bin (holds|cannot be read)/);
  });
});

describe('a lazy session whose manifest disagrees with its directory', () => {
  it.each([
    [
      'its entry count lowered',
      () => editRecord((record) => void (record.lazy.entries -= 1)),
      ['ls', '-r'],
      /holds 5 entries, where the manifest says 4/,
    ],
    [
      'an entry line pointing at another entry',
      () => editLine((line) => ({ ...line, path: 'top.txt' })),
      ['ls', '-r'],
      /says "top\.txt" \(file\), but the session's directory has "docs\/a\.txt"/,
    ],
    [
      'an entry line of another type',
      () => editLine((line) => ({ ...line, type: 'dir' })),
      ['ls', '-r'],
      /says "docs\/a\.txt" \(dir\)/,
    ],
    [
      'an entry index of 10^9',
      () => editLine((line) => ({ ...line, index: 1e9 })),
      ['status'],
      /lists entry index 1000000000, but the session's directory has 5 entries/,
    ],
    [
      'an entry index listed twice',
      () => editManifest((lines) => [...lines.slice(0, -1), lines.find((l) => l.includes('"path":"docs/a.txt"'))!, '']),
      ['status'],
      /lists entry index 1 twice/,
    ],
    ['a negative entry index', () => editLine((line) => ({ ...line, index: -1 })), ['status'], /lists entry index -1/],
  ])('(%s) is SESSION_DAMAGED, sync included (no hang, no lossy sync)', (_what, damage, first, detail) => {
    const before = sha(zip);
    damage();
    for (const args of [first, ['ls', '-r'], ['read', 'top.txt'], ['sync'], ['sync', '--dry-run']])
      expectDamaged(args, detail);
    expect(sha(zip)).toBe(before);
  });

  it.each([
    ["the directory's offset changed", (record: any) => void (record.lazy.central_start += 1)],
    ["the archive's offset changed", (record: any) => void (record.lazy.base_offset += 5)],
  ])('(%s) is SESSION_DAMAGED for what reads entries from the zip, not a "damaged archive"', (_what, change) => {
    editRecord(change);
    for (const args of [['read', 'top.txt'], ['grep', 'beta'], ['extract']])
      expectDamaged(
        args,
        new RegExp(
          /places the zip's directory at offset \d+ \(archive at \d+\), /.source +
            /but the zip, still this session's base, has it at/.source,
        ),
      );
  });

  it('an intact session still lists, reads and syncs (the checks pass what zipfs wrote)', () => {
    expect(box.run(['ls', '-r', '-s', 'big', '--json']).code).toBe(0);
    expect(box.run(['read', 'top.txt', '-s', 'big']).stdout).toContain('top');
    expect(box.run(['sync', '-s', 'big', '--json']).json.synced).toBe(true);
    // After the sync the session keeps the new archive's directory, checked the same way.
    expect(box.run(['ls', '-r', '-s', 'big', '--json']).json.entries.map((e: { name: string }) => e.name)).toContain(
      'new.txt',
    );
    expect(box.run(['read', 'logs/app.log', '-s', 'big']).code).toBe(0);
  });
});
