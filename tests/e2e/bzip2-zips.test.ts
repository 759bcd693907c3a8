/**
 * Zips with bzip2 entries (method 12, issue 32 part 4) from their real writers, 7-Zip (`-mm=BZip2`) and Python's
 * zipfile (ZIP_BZIP2), through the compiled binary on the CLI and over MCP: open (eager and lazy), read, grep (a
 * 9 MB entry too, which goes through the streaming decoder), edit one entry and sync. The unchanged bzip2 entries
 * are copied raw (method 12, the same bytes); the changed one is written as deflate; 7-Zip and Python read the
 * synced archive back. A damaged bzip2 entry is ZIP_INVALID naming the entry and the fault.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const A_TEXT = Array.from({ length: 20_000 }, (_, i) => `line ${i} alpha beta\n`).join('');
const B_TEXT = 'hello bzip2 world\n'.repeat(100);
/** Over 8 MiB: read and extracted through decodeStream, block by block. */
const BIG_TEXT = Array.from({ length: 400_000 }, (_, i) => `log entry ${i} status ok\n`).join('');

/** Each entry's method and the SHA-256 of its raw (compressed) data, as Python's zipfile finds them. */
const RAW_ENTRIES = `
import hashlib, json, sys, zipfile
out = {}
with open(sys.argv[1], 'rb') as f:
    for i in zipfile.ZipFile(sys.argv[1]).infolist():
        f.seek(i.header_offset)
        h = f.read(30)
        f.seek(i.header_offset + 30 + int.from_bytes(h[26:28], 'little') + int.from_bytes(h[28:30], 'little'))
        out[i.filename] = [i.compress_type, hashlib.sha256(f.read(i.compress_size)).hexdigest()]
print(json.dumps(out))
`;

function rawEntries(zip: string): Record<string, [number, string]> {
  return JSON.parse(execFileSync('python3', ['-c', RAW_ENTRIES, zip]).toString());
}

function sources(): string {
  const dir = path.join(box.dir, 'src');
  fs.mkdirSync(path.join(dir, 'd'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'a.txt'), A_TEXT);
  fs.writeFileSync(path.join(dir, 'd', 'b.txt'), B_TEXT);
  fs.writeFileSync(path.join(dir, 'big.log'), BIG_TEXT);
  return dir;
}

const WRITERS: [string, () => string][] = [
  [
    '7-Zip',
    () => {
      const zip = path.join(box.dir, 'seven.zip');
      execFileSync('7zz', ['a', '-tzip', '-mm=BZip2', zip, 'a.txt', 'd/b.txt', 'big.log'], { cwd: sources() });
      return zip;
    },
  ],
  [
    "Python's zipfile",
    () => {
      const zip = path.join(box.dir, 'python.zip');
      const script =
        'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_BZIP2) as z:\n' +
        '    for n in ["a.txt", "d/b.txt", "big.log"]: z.write(n)';
      execFileSync('python3', ['-c', script, zip], { cwd: sources() });
      return zip;
    },
  ],
];

/** The synced archive: a.txt and big.log copied raw, d/b.txt deflated with its new text; 7-Zip and Python agree. */
function checkSynced(zip: string, before: Record<string, [number, string]>, newB: string): void {
  const after = rawEntries(zip);
  expect(before['a.txt']![0]).toBe(12);
  expect(after['a.txt']).toStrictEqual(before['a.txt']!);
  expect(after['big.log']).toStrictEqual(before['big.log']!);
  expect(after['d/b.txt']![0]).toBe(8);
  expect(execFileSync('7zz', ['t', zip]).toString()).toContain('Everything is Ok');
  const read =
    'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n' +
    'sys.stdout.write(z.read("d/b.txt").decode() + "|" + str(len(z.read("big.log"))))';
  expect(execFileSync('python3', ['-c', read, zip]).toString()).toBe(`${newB}|${BIG_TEXT.length}`);
}

const tools = needs('7zz', 'python3');
describe.skipIf(tools.skip)(`zips with bzip2 entries${tools.why}`, () => {
  for (const [writer, make] of WRITERS) {
    for (const lazy of [false, true]) {
      it(`from ${writer}, opened ${lazy ? 'lazily' : 'eagerly'} on the CLI: read, grep, edit, sync`, () => {
        const zip = make();
        const before = rawEntries(zip);
        expect(before['big.log']![0]).toBe(12);
        const inspect = box.run(['inspect', zip, '--json']).json;
        expect(inspect.entries.find((e: { name: string }) => e.name === 'a.txt')).toMatchObject({ method: 'bzip2' });
        expect(box.run(['open', zip, ...(lazy ? ['--lazy'] : []), '--json']).code).toBe(0);
        expect(box.run(['read', 'd/b.txt']).stdout).toBe(B_TEXT);
        const grep = box.run(['grep', 'entry 399999 status|line 19999 alpha', '--json']).json;
        expect(grep.matches.map((m: { file: string }) => m.file).sort()).toStrictEqual(['a.txt', 'big.log']);
        expect(box.run(['edit', 'd/b.txt', '--old', 'hello', '--new', 'bye', '--replace-all', '--json']).code).toBe(0);
        const synced = box.run(['sync', '--json']);
        expect(synced.json).toMatchObject({ synced: true, files_modified: 1 });
        checkSynced(zip, before, B_TEXT.replaceAll('hello', 'bye'));
      });
    }
  }

  it("from 7-Zip over MCP: read, grep, edit and sync, the unchanged entries' bytes kept", async () => {
    const zip = WRITERS[0]![1]();
    const before = rawEntries(zip);
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_open', { path: zip })).isError).toBe(false);
      const read = await call(mcp.client, 'zipfs_read', { path: 'a.txt', start_line: 20_000 });
      expect(read.text).toContain('line 19999 alpha beta');
      const grep = await call(mcp.client, 'zipfs_grep', { pattern: 'entry 123456 status' });
      expect(grep.data.matches).toMatchObject([{ file: 'big.log' }]);
      const edited = await call(mcp.client, 'zipfs_edit', {
        path: 'd/b.txt',
        edits: [{ old_text: 'hello', new_text: 'bye', replace_all: true }],
      });
      expect(edited.data.replacements).toBe(100);
      expect((await call(mcp.client, 'zipfs_sync', {})).data).toMatchObject({ synced: true, files_modified: 1 });
    } finally {
      await mcp.close();
    }
    checkSynced(zip, before, B_TEXT.replaceAll('hello', 'bye'));
  });

  it('refuses a damaged bzip2 entry as ZIP_INVALID naming the entry and the fault, on both surfaces', async () => {
    const zip = WRITERS[1]![1]();
    const bytes = fs.readFileSync(zip);
    const at = bytes.indexOf('BZh9', bytes.indexOf('a.txt'));
    bytes[at + 2000]! ^= 0x04; // inside a.txt's one block
    fs.writeFileSync(zip, bytes);
    const refused = box.run(['open', zip, '--json']).json.error;
    expect(refused.code).toBe('ZIP_INVALID');
    expect(refused.message).toMatch(/^Entry "a\.txt": corrupt bzip2 data \(/);
    expect(box.run(['open', zip, '--lazy', '--json']).code).toBe(0);
    const mcp = await connect(box.home);
    try {
      const read = await call(mcp.client, 'zipfs_read', { path: 'a.txt' });
      expect(read.data.error).toMatchObject({ code: 'ZIP_INVALID' });
      expect(read.data.error.message).toContain('corrupt bzip2 data');
      expect((await call(mcp.client, 'zipfs_read', { path: 'd/b.txt' })).text).toContain('hello bzip2 world');
    } finally {
      await mcp.close();
    }
  });
});
