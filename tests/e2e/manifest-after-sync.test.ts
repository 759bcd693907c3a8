/**
 * The manifest a sync writes is true, line by line, whatever kind of sync it was: every entry line is the JSON text
 * JSON.stringify gives of it, every field as the written zip's central directory says, its `extracted` stat as the
 * file's stat now, and `status` clean. Written for performance issue 30, where unchanged lines were to be written from
 * the text read (tried and dropped, see the branch's history): a line kept stale, by a sync that moved only offsets or
 * moved a stat, would silently describe another entry. A sync of an early file (every later offset moves), a
 * same-content rewrite (a new stat), a rename, a delete before the others (indexes shift), a merge, and a manifest in
 * another key order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { FileSource, readCentralDirectory } from '../../src/zip/index.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';

const NAMES = Array.from({ length: 12 }, (_, i) => `dir${i % 3}/file-${String(i).padStart(2, '0')}.txt`);

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'many.zip',
    rawZip(NAMES.map((name, i) => ({ name, data: `${name}\n`.repeat(i + 1), method: i % 2 ? 8 : 0 }))),
  );
  root = box.run(['open', zip, '--name', 'many', '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

const manifestFile = () => path.join(box.home, 'workspaces', 'many', 'manifest.jsonl');

function sync(args: string[] = []): void {
  const run = box.run(['sync', 'many', '--json', ...args]);
  expect(run.stderr).toBe('');
  expect(run.json.synced).toBe(true);
}

/** The manifest's entry lines, each parsed; each must be what JSON.stringify gives of it. */
function entryLines(): any[] {
  const lines = fs.readFileSync(manifestFile(), 'utf8').split('\n');
  expect(lines.pop()).toBe('');
  return lines.slice(1).map((line) => {
    const record = JSON.parse(line);
    expect(line).toBe(JSON.stringify(record));
    return record;
  });
}

/**
 * Every line as the zip and the workspace are now, and status clean. Every file's stat is recorded, but where a merge
 * took the zip's side after the scan (`taken`: those files' lines have none, and status reads them).
 */
function expectManifestTrue(taken: string[] = []): any[] {
  const records = entryLines();
  const source = new FileSource(zip);
  try {
    const { entries } = readCentralDirectory(source);
    expect(records.map((record) => record.name)).toStrictEqual(entries.map((entry) => entry.name));
    for (const entry of entries) {
      expect(records[entry.index]).toMatchObject({
        index: entry.index,
        size: entry.uncompressedSize,
        compressed_size: entry.compressedSize,
        crc32: entry.crc32,
        method: entry.method,
        flags: entry.flags,
        dos_time: entry.dosTime,
        dos_date: entry.dosDate,
        external_attributes: entry.externalAttributes,
        local_header_offset: entry.localHeaderOffset,
        central_offset: entry.centralOffset,
      });
    }
  } finally {
    source.close();
  }
  for (const record of records) {
    if (record.type === 'dir') continue;
    if (taken.includes(record.path)) {
      expect(record.extracted).toBeUndefined();
      continue;
    }
    const stat = fs.statSync(path.join(root, record.path));
    expect({ path: record.path, ...record.extracted }).toStrictEqual({
      path: record.path,
      size: stat.size,
      mtime_ms: stat.mtimeMs,
      ctime_ms: stat.ctimeMs,
      ino: stat.ino,
    });
  }
  expect(box.run(['status', 'many', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
  return records;
}

const file = (relative: string) => path.join(root, relative);
const last = NAMES.length - 1;

/** A first sync, of the last file changed: every file's stat is recorded in the manifest after it. */
function firstSync(): any[] {
  fs.appendFileSync(file(NAMES[last]!), 'first\n');
  sync();
  return expectManifestTrue();
}

describe('the manifest after a sync', () => {
  it('moves every later line to its new offsets when an early file grows', () => {
    const before = firstSync();
    fs.appendFileSync(file(NAMES[0]!), 'more\n');
    sync();
    const after = expectManifestTrue();
    expect(after[last].local_header_offset).toBe(before[last].local_header_offset + 5);
  });

  it("writes a file's new stat where its content is the same but its stat moved", () => {
    firstSync();
    // NAMES[5]: rewritten with the same bytes (new mtime, ctime); NAMES[1] changed, so the later lines move.
    const same = fs.readFileSync(file(NAMES[5]!));
    fs.utimesSync(file(NAMES[5]!), new Date(2_000_000_000_000), new Date(2_000_000_000_000));
    fs.writeFileSync(file(NAMES[5]!), same);
    fs.appendFileSync(file(NAMES[1]!), 'more\n');
    sync();
    const records = expectManifestTrue();
    expect(records[5].extracted.mtime_ms).toBe(fs.statSync(file(NAMES[5]!)).mtimeMs);
  });

  it('renames a file, and deletes one before the others (every later index shifts)', () => {
    firstSync();
    fs.renameSync(file(NAMES[2]!), file('dir2/renamed.txt'));
    sync();
    expectManifestTrue();
    fs.rmSync(file(NAMES[0]!));
    sync();
    const records = expectManifestTrue();
    expect(records.some((record) => record.name === NAMES[0])).toBe(false);
    fs.appendFileSync(file(NAMES[last]!), 'more\n');
    sync();
    expectManifestTrue();
  });

  it("merges a zip another session changed, taking its side into this workspace's lines", () => {
    firstSync();
    const other = box.run(['open', zip, '--name', 'other', '--json']).json.workspace_path;
    fs.appendFileSync(path.join(other, NAMES[3]!), 'theirs\n');
    fs.writeFileSync(path.join(other, 'dir0/aaa-new.txt'), 'new\n');
    expect(box.run(['sync', 'other', '--json']).json.synced).toBe(true);
    fs.appendFileSync(file(NAMES[7]!), 'mine\n');
    sync(['--merge']);
    expectManifestTrue([NAMES[3]!, 'dir0/aaa-new.txt']);
    expect(fs.readFileSync(file(NAMES[3]!), 'utf8')).toEndWith('theirs\n');
    fs.appendFileSync(file(NAMES[0]!), 'again\n');
    sync();
    expectManifestTrue();
  });

  it('is true after a manifest in another key order (the offsets after the stat) was read', () => {
    firstSync();
    const lines = fs.readFileSync(manifestFile(), 'utf8').split('\n');
    const reordered = lines.map((line, i) => {
      if (i === 0 || line === '') return line;
      const { local_header_offset, central_offset, ...rest } = JSON.parse(line);
      return JSON.stringify({ ...rest, local_header_offset, central_offset });
    });
    expect(reordered[1]).not.toBe(lines[1]);
    fs.writeFileSync(manifestFile(), reordered.join('\n'));
    expect(box.run(['status', 'many', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
    fs.appendFileSync(file(NAMES[0]!), 'more\n');
    sync();
    expectManifestTrue();
    fs.appendFileSync(file(NAMES[1]!), 'more\n');
    sync();
    expectManifestTrue();
  });
});
