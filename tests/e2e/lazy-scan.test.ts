/**
 * A lazy session scans only what it extracted (issue 30, point 3): the folders
 * extracting an entry made are not taken for entries to look up, so status
 * with one file extracted never loads the directory of every entry, and sync
 * compares and rewrites only what the manifest lists. The untouched entries,
 * stored folder entries included, are copied raw and stay out of the manifest.
 * Observed through the session's own files, never through timings.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { rawEntries, sha } from '../helpers/zip-compare.ts';

const ENTRIES: RawEntry[] = [
  { name: 'docs/', unixMode: 0o40755 },
  { name: 'docs/sub/', unixMode: 0o40755 },
  { name: 'docs/sub/a.txt', data: 'alpha\nserver.port=8080\n', method: 8, unixMode: 0o100644 },
  { name: 'docs/b.txt', data: 'beta\n', method: 8, unixMode: 0o100644 },
  // folders implied, not stored
  { name: 'x/y/z.txt', data: 'zed\n', method: 8, unixMode: 0o100644 },
  { name: 'top.txt', data: 'top\n', method: 0, unixMode: 0o100644 },
  // not a plain ASCII name: placed as open places it, not by its bytes
  { name: 'notes/café.txt', data: 'au lait\n', method: 8, unixMode: 0o100644, flags: 0x800 },
  ...Array.from({ length: 40 }, (_, i) => ({ name: `many/m${i}.txt`, data: `m${i}\n`, method: 8 as const })),
];

let box: ReturnType<typeof sandbox>;
let zip: string;
let dir: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'lazy.zip', rawZip(ENTRIES));
  expect(box.run(['open', zip, '--lazy', '--name', 'big']).code).toBe(0);
  dir = path.join(box.home, 'workspaces', 'big');
  // Extracted by the edit, with the folders on its way (docs/, docs/sub/: stored entries of the zip too).
  expect(box.run(['edit', 'docs/sub/a.txt', '--old', '8080', '--new', '9090', '-s', 'big']).code).toBe(0);
});
afterEach(() => box.cleanup());

const central = () => path.join(dir, 'central.bin');
const FILES = ENTRIES.filter((entry) => !entry.name.endsWith('/')).length;
/** The session's file count, as `sessions` says it. */
const fileCount = () =>
  box.run(['sessions', '--json']).json.sessions.find((s: { name: string }) => s.name === 'big').file_count;
/** The paths the manifest lists (its lines after the session record). */
const listed = () =>
  fs
    .readFileSync(path.join(dir, 'manifest.jsonl'), 'utf8')
    .split('\n')
    .slice(1)
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line).path)
    .sort();

describe('a lazy session with one file extracted', () => {
  it('status answers from the manifest alone: its central.bin is not read, even garbage', () => {
    const intact = fs.readFileSync(central());
    // Garbage of the same length: any read of it is SESSION_DAMAGED (damaged-lazy-sessions.test.ts).
    fs.writeFileSync(central(), Buffer.alloc(intact.length, 0x5a));
    const status = box.run(['status', '-s', 'big', '--json']);
    expect(status.code).toBe(0);
    expect(status.json).toMatchObject({
      modified: ['docs/sub/a.txt'],
      added: [],
      deleted: [],
      unchanged_count: ENTRIES.length - 1,
    });
    // A sync still checks it before trusting the base, and writes nothing.
    const before = sha(zip);
    const sync = box.run(['sync', '-s', 'big', '--json']);
    expect(sync.json?.error?.code).toBe('SESSION_DAMAGED');
    expect(sha(zip)).toBe(before);
    fs.writeFileSync(central(), intact);
  });

  it('sync compares and lists only the extracted entry; the folder entries on its way are copied untouched', () => {
    const synced = box.run(['sync', '-s', 'big', '--json']).json;
    expect(synced).toMatchObject({ synced: true, files_modified: 1, files_added: 0, files_deleted: 0 });
    // The manifest lists what was extracted: not the stored folders docs/ and docs/sub/ that extracting it made.
    expect(listed()).toEqual(['docs/sub/a.txt']);
    const written = rawEntries(zip);
    expect(written.order).toEqual(ENTRIES.map((entry) => entry.name));
    expect(written.entries.get('docs/sub/a.txt')!.content.toString()).toBe('alpha\nserver.port=9090\n');
    expect(box.run(['status', '-s', 'big', '--json']).json).toMatchObject({
      modified: [],
      unchanged_count: ENTRIES.length,
    });
    // The same names as the base's: the counts are the base's, not counted again.
    expect(fileCount()).toBe(FILES);
  });

  it('a folder of the zip emptied, or replaced by a file, is still seen as a change', () => {
    // The folders on the way to an extracted entry are skipped only while they are folders on disk.
    fs.rmSync(path.join(dir, 'contents', 'docs', 'sub'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'contents', 'docs', 'sub'), 'now a file\n');
    const status = box.run(['status', '-s', 'big', '--json']).json;
    expect(status).toMatchObject({ deleted: ['docs/sub/', 'docs/sub/a.txt'], added: ['docs/sub'] });
  });

  it('a new folder, and a file written at an entry never extracted, are still found', () => {
    const contents = path.join(dir, 'contents');
    fs.mkdirSync(path.join(contents, 'x', 'y'), { recursive: true });
    fs.writeFileSync(path.join(contents, 'x', 'y', 'z.txt'), 'zed, changed\n');
    fs.mkdirSync(path.join(contents, 'docs', 'new'));
    const status = box.run(['status', '-s', 'big', '--json']).json;
    expect(status).toMatchObject({ modified: ['docs/sub/a.txt', 'x/y/z.txt'], added: ['docs/new/'], deleted: [] });
    expect(box.run(['sync', '-s', 'big', '--json']).json.synced).toBe(true);
    expect(listed()).toEqual(['docs/new', 'docs/sub/a.txt', 'x/y/z.txt']);
    expect(rawEntries(zip).order).toEqual([...ENTRIES.map((entry) => entry.name), 'docs/new/']);
  });
});

describe('files written at the paths of entries never extracted', () => {
  it('are those entries, changed, whether a few (found in one pass) or many (through the index)', () => {
    const contents = path.join(dir, 'contents');
    fs.mkdirSync(path.join(contents, 'notes'));
    fs.writeFileSync(path.join(contents, 'notes', 'café.txt'), 'noir\n');
    expect(box.run(['status', '-s', 'big', '--json']).json).toMatchObject({
      modified: ['docs/sub/a.txt', 'notes/café.txt'],
      added: [],
    });
    // More than one pass looks for: the same answer from the index of every path.
    fs.mkdirSync(path.join(contents, 'many'));
    for (let i = 0; i < 40; i++) fs.writeFileSync(path.join(contents, 'many', `m${i}.txt`), `m${i}, changed\n`);
    fs.writeFileSync(path.join(contents, 'many', 'extra.txt'), 'new\n');
    const status = box.run(['status', '-s', 'big', '--json', '--limit', '100']).json;
    expect(status.modified).toHaveLength(42);
    expect(status.added).toEqual(['many/extra.txt']);
    expect(box.run(['sync', '-s', 'big', '--json']).json).toMatchObject({ files_modified: 42, files_added: 1 });
    expect(rawEntries(zip).entries.get('notes/café.txt')!.content.toString()).toBe('noir\n');
    expect(rawEntries(zip).entries.get('many/m39.txt')!.content.toString()).toBe('m39, changed\n');
  });
});

describe('a new path beside entries never extracted', () => {
  it('is checked against those on its way or below it only, and a clash is still refused', () => {
    const contents = path.join(dir, 'contents');
    // x/y is a folder the zip implies (x/y/z.txt, never extracted): a file there cannot be written.
    fs.mkdirSync(path.join(contents, 'x'));
    fs.writeFileSync(path.join(contents, 'x', 'y'), 'a file\n');
    // x is a folder of the zip's too (implied by x/y/z.txt): not a new one.
    expect(box.run(['status', '-s', 'big', '--json']).json.added).toEqual(['x/y']);
    const before = sha(zip);
    const refused = box.run(['sync', '-s', 'big', '--json']).json;
    expect(refused.error.message).toContain(
      '"x/y" is a file in the workspace, but "x/y/z.txt", only in the zip (never extracted), needs it to be a folder',
    );
    expect(sha(zip)).toBe(before);
    fs.rmSync(path.join(contents, 'x'), { recursive: true });
    fs.mkdirSync(path.join(contents, 'many'));
    fs.writeFileSync(path.join(contents, 'many', 'm0.txt.new'), 'beside\n');
    expect(box.run(['sync', '-s', 'big', '--json']).json).toMatchObject({ synced: true, files_added: 1 });
    expect(rawEntries(zip).order.at(-1)).toBe('many/m0.txt.new');
    expect(fileCount()).toBe(FILES + 1);
  });
});
