/**
 * Lazy sessions (issue 23): `open --lazy` extracts nothing and `--only`
 * extracts what it names; every tool sees the whole archive; changes work on
 * entries never extracted; status and sync treat those as unchanged and copy
 * them raw; the limits and the bomb and traversal guards apply to what is
 * extracted or read. Through the compiled binary, as a CLI and over MCP.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';
import { REFERENCE_WHY, expectReferenceClean, pythonRead, rawEntries } from '../helpers/zip-compare.ts';

const python = needs('python3');

const LINES = Array.from({ length: 200 }, (_, i) => `line ${i + 1} of the log\n`).join('');
const ENTRIES: RawEntry[] = [
  { name: 'docs/', unixMode: 0o40755 },
  { name: 'docs/a.txt', data: 'alpha\nserver.port=8080\n', method: 8, unixMode: 0o100644 },
  { name: 'docs/b.txt', data: 'beta\n', method: 8, unixMode: 0o100644 },
  { name: 'logs/app.log', data: LINES, method: 8, unixMode: 0o100644 },
  { name: 'data/blob.bin', data: new Uint8Array(4096).map((_, i) => (i * 7) & 0xff), method: 0, unixMode: 0o100644 },
  { name: 'top.txt', data: 'top\n', method: 8, unixMode: 0o100644 },
];

let box: ReturnType<typeof sandbox>;
let zip: string;
let original: Map<string, { local: Buffer; content: Buffer }>;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'lazy.zip', rawZip(ENTRIES));
  original = new Map(
    [...rawEntries(zip).entries].map(([name, view]) => [name, { local: view.local, content: view.content }]),
  );
});
afterEach(() => box.cleanup());

/** Files (not folders) under the workspace folder, relative. */
function filesIn(root: string): string[] {
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath, d.name)))
    .sort();
}

describe('open --lazy', () => {
  it('extracts nothing, and every tool sees the whole archive', () => {
    const opened = box.run(['open', zip, '--lazy', '--json']).json;
    // Files in both counts, folders in neither (issue 31: they differed by the folders).
    expect(opened.not_extracted).toBe(5);
    expect(opened.extracted_size_bytes).toBe(0);
    expect(opened.file_count).toBe(5);
    expect(filesIn(opened.workspace_path)).toEqual([]);
    expect(box.run(['ls', '--json']).json.entries.map((e: { name: string }) => e.name)).toEqual([
      'data/',
      'docs/',
      'logs/',
      'top.txt',
    ]);
    expect(
      box
        .run(['ls', 'docs', '--json'])
        .json.entries.map((e: { name: string; size_bytes: number }) => [e.name, e.size_bytes]),
    ).toEqual([
      ['a.txt', 23],
      ['b.txt', 5],
    ]);
    expect(box.run(['tree']).stdout).toContain('4 folders, 5 files'.replace('4 folders', '3 folders'));
    expect(box.run(['read', 'docs/a.txt']).stdout).toBe('alpha\nserver.port=8080\n');
    const lines = box.run(['read', 'logs/app.log', '--start-line', '100', '--end-line', '101', '--json']).json;
    expect(lines.content).toBe('line 100 of the log\nline 101 of the log\n');
    expect(lines.total_lines).toBe(200);
    expect(box.run(['read', 'data/blob.bin', '--encoding', 'base64', '--json']).json.content).toBe(
      Buffer.from(original.get('data/blob.bin')!.content).toString('base64'),
    );
    const status = box.run(['status', '--json']).json;
    expect([status.modified, status.added, status.deleted]).toEqual([[], [], []]);
    const where = box.run(['path']);
    expect(where.stdout.trim()).toBe(opened.workspace_path);
    expect(where.stderr).toContain('5 files are only in the zip');
    // Reading never wrote into the folder: other tools see only what was extracted.
    expect(filesIn(opened.workspace_path)).toEqual([]);
  });

  it('--only extracts the entries it names and leaves the rest in the zip', () => {
    const opened = box.run(['open', zip, '--only', 'docs', '--only', '*.log', '--json']).json;
    expect(filesIn(opened.workspace_path)).toEqual(['docs/a.txt', 'docs/b.txt', 'logs/app.log']);
    expect(opened.not_extracted).toBe(2);
    expect(box.run(['status', '--json']).json.modified).toEqual([]);
    const missing = box.run(['open', zip, '--name', 'other', '--only', 'nothing/here.txt', '--json']);
    expect(missing.json.error.code).toBe('PATH_NOT_FOUND');
    expect(box.run(['sessions', '--json']).json.sessions.length).toBe(1); // the failed open left no session
  });

  it('extract puts entries into the folder for other tools', () => {
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    const done = box.run(['extract', 'docs/a.txt', 'data/*', '--json']).json;
    expect(done).toEqual({ extracted: 2, bytes: 23 + 4096, not_extracted: 3 });
    expect(filesIn(root)).toEqual(['data/blob.bin', 'docs/a.txt']);
    expect(fs.readFileSync(path.join(root, 'docs/a.txt'), 'utf8')).toBe('alpha\nserver.port=8080\n');
    expect(box.run(['status', '--json']).json.modified).toEqual([]);
    expect(box.run(['extract', '--json']).json.not_extracted).toBe(0);
    expect(filesIn(root)).toEqual(['data/blob.bin', 'docs/a.txt', 'docs/b.txt', 'logs/app.log', 'top.txt']);
    // Nothing left to write: the answer says why, and which call takes the zip's version (issue 31).
    const again = box.run(['extract', 'docs/a.txt', '--json']).json;
    expect(again).toMatchObject({ extracted: 0, not_extracted: 0 });
    expect(again.note).toContain('in the folder already');
    expect(again.note).toContain('zipfs restore docs/a.txt --from zip');
  });
});

describe('changes in a lazy session', () => {
  it.skipIf(python.skip)(
    `syncs a mix of extracted, lazy and changed entries: other readers agree, unchanged entries are ` +
      `byte-identical${python.why}${REFERENCE_WHY}`,
    () => {
      const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
      expect(box.run(['extract', 'top.txt']).code).toBe(0);
      // extracted first, then edited
      expect(box.run(['edit', 'docs/a.txt', '--old', 'alpha', '--new', 'ALPHA']).code).toBe(0);
      expect(box.run(['delete', 'docs/b.txt']).code).toBe(0); // never extracted: deleted in the manifest
      expect(box.run(['write', 'notes/new.txt', 'fresh\n']).code).toBe(0);
      fs.writeFileSync(path.join(root, 'top.txt'), 'top, by another tool\n');
      const status = box.run(['status', '--json']).json;
      expect(status.modified).toEqual(['docs/a.txt', 'top.txt']);
      expect(status.deleted).toEqual(['docs/b.txt']);
      expect(status.added).toContain('notes/new.txt');
      const synced = box.run(['sync', '--json']).json;
      expect([synced.files_modified, synced.files_deleted]).toEqual([2, 1]);
      expect(box.run(['status', '--json']).json.modified).toEqual([]);

      const after = rawEntries(zip);
      for (const name of ['docs/', 'logs/app.log', 'data/blob.bin'])
        expect(after.entries.get(name)!.local.equals(original.get(name)!.local)).toBe(true);
      expect(after.entries.has('docs/b.txt')).toBe(false);
      expectReferenceClean(zip);
      const read = pythonRead(zip);
      expect(Buffer.from(read.contents['docs/a.txt']!, 'hex').toString()).toBe('ALPHA\nserver.port=8080\n');
      expect(Buffer.from(read.contents['logs/app.log']!, 'hex').toString()).toBe(LINES);
      expect(Buffer.from(read.contents['notes/new.txt']!, 'hex').toString()).toBe('fresh\n');
      // The session goes on lazily against the new zip.
      expect(box.run(['read', 'logs/app.log', '--start-line', '-1']).stdout).toBe('line 200 of the log\n');
      expect(filesIn(root)).toEqual(['docs/a.txt', 'notes/new.txt', 'top.txt']);
    },
  );

  it('writes and makes folders inside folders only in the zip, without asking for parents', () => {
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    expect(box.run(['write', 'docs/c.txt', 'gamma', '--create-dirs=false', '--json']).json.written).toBe(true);
    expect(box.run(['mkdir', 'logs/old', '--json']).json.error).toBeUndefined();
    expect(fs.readFileSync(path.join(root, 'docs/c.txt'), 'utf8')).toBe('gamma');
    expect(box.run(['status', '--json']).json.added).toEqual(['docs/c.txt', 'logs/old/']);
    expect(box.run(['write', 'nowhere/c.txt', 'x', '--create-dirs=false', '--json']).json.error.code).toBe(
      'PATH_NOT_FOUND',
    );
  });

  it('moves an entry never extracted, and deletes a folder of them', () => {
    box.run(['open', zip, '--lazy']);
    expect(box.run(['mv', 'top.txt', 'moved/top.txt']).code).toBe(0);
    expect(box.run(['delete', 'docs']).json?.error?.code ?? box.run(['delete', 'docs', '--json']).json.error.code).toBe(
      'INVALID_INPUT',
    );
    expect(box.run(['delete', 'docs', '-r']).code).toBe(0);
    const status = box.run(['status', '--json']).json;
    expect(status.renamed).toEqual([{ from: 'top.txt', to: 'moved/top.txt' }]);
    expect(status.deleted).toEqual(['docs/', 'docs/a.txt', 'docs/b.txt']);
    expect(box.run(['sync']).code).toBe(0);
    expect(rawEntries(zip).order.sort()).toEqual(['data/blob.bin', 'logs/app.log', 'moved/', 'moved/top.txt'].sort());
  });

  it.skipIf(python.skip)(
    `merges with another writer: the zip side of entries never extracted stays in the zip${python.why}`,
    () => {
      const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
      expect(box.run(['edit', 'docs/a.txt', '--old', 'alpha', '--new', 'ours']).code).toBe(0);
      // The other writer: an eager session of the same zip changes an entry this one never extracted, and adds one.
      const theirs = box.run(['open', zip, '--name', 'theirs', '--json']).json.workspace_path;
      fs.writeFileSync(path.join(theirs, 'top.txt'), 'top, theirs\n');
      fs.writeFileSync(path.join(theirs, 'added.txt'), 'added by them\n');
      expect(box.run(['sync', 'theirs']).code).toBe(0);
      expect(box.run(['status', '-s', 'lazy', '--json']).json.zip_changed).toEqual(['A added.txt', 'M top.txt']);
      expect(box.run(['sync', '-s', 'lazy', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
      // a lazy session cannot force
      expect(box.run(['sync', '-s', 'lazy', '--force', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
      const merged = box.run(['sync', '-s', 'lazy', '--merge', '--json']).json;
      expect(merged.from_zip).toEqual(['A added.txt', 'M top.txt']);
      expect(merged.files_modified).toBe(1);
      const read = pythonRead(zip).contents;
      expect(Buffer.from(read['docs/a.txt']!, 'hex').toString()).toBe('ours\nserver.port=8080\n');
      expect(Buffer.from(read['top.txt']!, 'hex').toString()).toBe('top, theirs\n');
      expect(Buffer.from(read['added.txt']!, 'hex').toString()).toBe('added by them\n');
      expect(rawEntries(zip).entries.get('logs/app.log')!.local.equals(original.get('logs/app.log')!.local)).toBe(true);
      // Only what this session had on disk is there; the zip's side of the rest is read from the zip.
      expect(filesIn(root)).toEqual(['docs/a.txt']);
      expect(box.run(['read', 'top.txt', '-s', 'lazy']).stdout).toBe('top, theirs\n');
      expect(box.run(['status', '-s', 'lazy', '--json']).json.modified).toEqual([]);
    },
  );

  it('refuses to read entries from a zip another writer changed', () => {
    box.run(['open', zip, '--lazy']);
    writeZip(box.dir, 'lazy.zip', rawZip([{ name: 'top.txt', data: 'replaced\n' }]));
    const read = box.run(['read', 'top.txt', '--json']).json;
    expect(read.error.code).toBe('CONFLICT_DETECTED');
  });
});

describe('limits and guards in a lazy session', () => {
  it('opens past the entry limit, and applies it to what is extracted', () => {
    const env = { ZIPFS_MAX_ENTRIES: '3' };
    expect(box.run(['open', zip, '--json'], { env }).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['open', zip, '--lazy', '--json'], { env }).json.not_extracted).toBe(5);
    expect(box.run(['extract', 'docs', '--json'], { env }).json.extracted).toBe(3);
    const more = box.run(['extract', '--json'], { env }).json;
    expect(more.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(more.error.message).toContain('ZIPFS_MAX_ENTRIES');
  });

  it('opens past the byte limit, and applies it to what is extracted or read', () => {
    const env = { ZIPFS_MAX_EXTRACTED_BYTES: '1000' }; // the archive expands to about 9 KB
    expect(box.run(['open', zip, '--json'], { env }).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['open', zip, '--lazy', '--json'], { env }).json.not_extracted).toBe(5);
    expect(box.run(['read', 'top.txt'], { env }).stdout).toBe('top\n');
    expect(box.run(['extract', 'docs', '--json'], { env }).json.extracted).toBe(3);
    const big = box.run(['extract', 'logs/app.log', '--json'], { env }).json.error;
    expect(big.code).toBe('ZIP_BOMB_DETECTED');
    expect(big.message).toContain('ZIPFS_MAX_EXTRACTED_BYTES');
    expect(box.run(['read', 'logs/app.log', '--json'], { env }).json.error.code).toBe('ZIP_BOMB_DETECTED');
  });

  it('refuses a bomb entry when it is read, grepped or extracted, not at open', () => {
    const big = 'A'.repeat(64 << 20);
    const bomb = writeZip(
      box.dir,
      'bomb.zip',
      rawZip([
        { name: 'ok.txt', data: 'fine\n', method: 8 },
        { name: 'bomb.txt', data: big, method: 8 },
      ]),
    );
    expect(box.run(['open', bomb, '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['open', bomb, '--lazy', '--json']).json.not_extracted).toBe(2);
    expect(box.run(['read', 'ok.txt']).stdout).toBe('fine\n');
    expect(box.run(['read', 'bomb.txt', '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['extract', 'bomb.txt', '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['grep', 'A', '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(box.run(['grep', 'fine', '--glob', 'ok.txt', '--json']).json.total_matches).toBe(1);
  });

  it('refuses a name that climbs out, as an eager open does', () => {
    const evil = writeZip(box.dir, 'evil.zip', rawZip([{ name: '../escape.txt', data: 'x' }]));
    expect(box.run(['open', evil, '--lazy', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    expect(fs.existsSync(path.join(box.dir, 'escape.txt'))).toBe(false);
  });

  it('refuses entries sharing bytes (overlap bomb) from the directory alone', () => {
    const overlap = writeZip(
      box.dir,
      'overlap.zip',
      rawZip([
        { name: 'a.txt', data: 'x'.repeat(1000), method: 8 },
        { name: 'b.txt', shareDataOf: 0 },
      ]),
    );
    expect(box.run(['open', overlap, '--lazy', '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
  });
});

describe('grep in a lazy session', () => {
  it('finds text in entries never extracted, and in extracted ones', () => {
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    box.run(['extract', 'docs/a.txt']);
    fs.writeFileSync(path.join(root, 'docs/a.txt'), 'alpha\nserver.port=9090\n');
    const found = box.run(['grep', 'port|line 150 ', '--json']).json;
    expect(found.matches.map((m: { file: string; line_number: number }) => [m.file, m.line_number])).toEqual([
      ['docs/a.txt', 2],
      ['logs/app.log', 150],
    ]);
    expect(found.matches[0].line_content).toBe('server.port=9090'); // the workspace's copy, not the zip's
    expect(filesIn(root)).toEqual(['docs/a.txt']);
  });
});

describe('over MCP', () => {
  it('opens lazily, reads, extracts and syncs through the tools', async () => {
    const { client, close } = await connect(box.home);
    try {
      const opened = await call(client, 'zipfs_open', { path: zip, lazy: true });
      expect(opened.data.not_extracted).toBe(5);
      expect(
        (await call(client, 'zipfs_read', { path: 'logs/app.log', start_line: 3, end_line: 3 })).data.content,
      ).toBe('line 3 of the log\n');
      expect(
        (await call(client, 'zipfs_ls', { path: 'docs' })).data.entries.map((e: { name: string }) => e.name),
      ).toEqual(['a.txt', 'b.txt']);
      expect(
        (await call(client, 'zipfs_grep', { pattern: 'line 7 ' })).data.matches.map((m: { file: string }) => m.file),
      ).toEqual(['logs/app.log']);
      expect((await call(client, 'zipfs_delete', { path: 'top.txt' })).isError).toBe(false);
      expect((await call(client, 'zipfs_diff', {})).data.files.map((f: { path: string }) => f.path)).toEqual([
        'top.txt',
      ]);
      expect((await call(client, 'zipfs_extract', { paths: ['docs/**'] })).data.extracted).toBe(2);
      expect((await call(client, 'zipfs_write', { path: 'docs/b.txt', content: 'beta 2\n' })).isError).toBe(false);
      const synced = (await call(client, 'zipfs_sync', {})).data;
      expect([synced.files_modified, synced.files_deleted]).toEqual([1, 1]);
      expect(rawEntries(zip).entries.get('logs/app.log')!.local.equals(original.get('logs/app.log')!.local)).toBe(true);
    } finally {
      await close();
    }
  });
});

describe.skipIf(needs('python3').skip)(`against Python's zipfile${needs('python3').why}`, () => {
  it('lists the same files as a lazy open counts', () => {
    const opened = box.run(['open', zip, '--lazy', '--json']).json;
    expect(opened.not_extracted).toBe(pythonRead(zip).names.filter((name) => !name.endsWith('/')).length);
  });
});
