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
    expect(status.json).toMatchObject({ modified: ['docs/sub/a.txt'], added: [], deleted: [], unchanged_count: 5 });
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
    expect(box.run(['status', '-s', 'big', '--json']).json).toMatchObject({ modified: [], unchanged_count: 6 });
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
