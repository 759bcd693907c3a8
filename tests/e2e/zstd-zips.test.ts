/**
 * zstd entries (method 93, issue 32 point 4) through the compiled binary, on the CLI and over MCP. No writer of zstd
 * zips is on this machine (bsdtar 3.6 and 7-Zip write none, Python 3.11's zipfile has no zstd, crates.io is out of
 * reach), so the archive comes from Python's zipfile taught method 93 with python-zstandard (libzstd), as Python
 * 3.14 does natively (tests/helpers/zstd-zip.py). Edited, each entry stays zstd, and three readers that are not
 * zipfs read it back: that zipfile, 7-Zip (7zz t) and libarchive (bsdtar). A changed entry of a method zipfs reads
 * but cannot write (LZMA from 7-Zip) is deflated, and sync's answer says so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';
import { codecFor } from '../../src/zip/codec-registry.ts';

const HELPER = path.join(import.meta.dir, '..', 'helpers', 'zstd-zip.py');
/** Debian's own interpreter: python3-zstandard installs there, not in a pyenv python3 earlier on PATH. */
const PYTHON = '/usr/bin/python3';
const hasZstandard = spawnSync(PYTHON, ['-c', 'import zstandard']).status === 0;

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const A_TEXT = Array.from({ length: 3000 }, (_, i) => `row ${i}: alpha beta gamma\n`).join('');
const B_TEXT = '# Notes\n\nThe needle is here.\n';
/** Over 8 MiB: sync streams it through the piece encoder, and open extracts it streamed. */
const BIG_TEXT = Array.from({ length: 300_000 }, (_, i) => `${i.toString(36)} log line of some length\n`).join('');

function python(args: string[]): Buffer {
  return execFileSync(PYTHON, [HELPER, ...args], { maxBuffer: 64 << 20 });
}

/** zstd.zip: a.txt, notes/b.md and big.log, all method 93, written by zipfile with libzstd. */
function zstdZip(): string {
  const src = path.join(box.dir, 'src');
  fs.mkdirSync(src);
  const files = { 'a.txt': A_TEXT, 'notes/b.md': B_TEXT, 'big.log': BIG_TEXT };
  const specs = Object.entries(files).map(([name, text], i) => {
    fs.writeFileSync(path.join(src, `${i}`), text);
    return `${name}=${path.join(src, `${i}`)}`;
  });
  const zip = path.join(box.dir, 'zstd.zip');
  python(['write', zip, ...specs]);
  return zip;
}

/** Every reader that is not zipfs agrees the archive is whole, with each entry still zstd. */
function readersAgree(zip: string, expected: Record<string, string>): void {
  expect(python(['methods', zip]).toString()).toBe(
    `${Object.keys(expected)
      .map((name) => `${name} 93\n`)
      .join('')}`,
  );
  expect(python(['test', zip]).toString()).toBe('ok\n');
  execFileSync('7zz', ['t', zip], { stdio: 'ignore' }); // throws unless "Everything is Ok"
  for (const [name, text] of Object.entries(expected)) {
    expect(python(['read', zip, name]).toString()).toBe(text);
    expect(execFileSync('bsdtar', ['-xOf', zip, name], { maxBuffer: 64 << 20 }).toString()).toBe(text);
  }
}

describe.skipIf(needs('7zz', 'bsdtar').skip || !hasZstandard)('zstd zips from a writer that is not zipfs', () => {
  it('inspect names the method; open, read, grep, edit and sync keep every entry zstd (CLI)', () => {
    const zip = zstdZip();
    const inspected = box.run(['inspect', zip, '--json']).json.entries;
    expect(inspected.map((e: { name: string; method: string }) => [e.name, e.method])).toStrictEqual([
      ['a.txt', 'zstd'],
      ['notes/b.md', 'zstd'],
      ['big.log', 'zstd'],
    ]);
    expect(box.run(['open', zip, '--json']).code).toBe(0);
    expect(box.run(['read', 'a.txt']).stdout).toBe(A_TEXT);
    const grep = box.run(['grep', 'needle', '--json']).json;
    expect(grep.matches.map((m: { file: string }) => m.file)).toStrictEqual(['notes/b.md']);
    const edit = box.run(['edit', 'notes/b.md', '--old', 'needle', '--new', 'pin', '--json']).json;
    expect(edit.replacements).toBe(1);
    fs.appendFileSync(path.join(box.home, 'workspaces', 'zstd', 'contents', 'big.log'), 'one more line\n');
    const synced = box.run(['sync', '--json']);
    expect(synced.code).toBe(0);
    expect(synced.json).toMatchObject({ synced: true, files_modified: 2 });
    expect(synced.json).not.toHaveProperty('method_changed');
    readersAgree(zip, {
      'a.txt': A_TEXT,
      'notes/b.md': B_TEXT.replace('needle', 'pin'),
      'big.log': `${BIG_TEXT}one more line\n`,
    });
    // And zipfs reads its own zstd back: a fresh open of the synced zip.
    expect(box.run(['close', '--json']).code).toBe(0);
    expect(box.run(['open', zip, '--lazy', '--json']).code).toBe(0);
    expect(box.run(['read', 'notes/b.md']).stdout).toBe(B_TEXT.replace('needle', 'pin'));
  });

  it('works lazily over MCP: read, grep and edit from the zip, sync keeps zstd', async () => {
    const zip = zstdZip();
    const mcp = await connect(box.home);
    try {
      const inspected = await call(mcp.client, 'zipfs_inspect', { path: zip });
      expect(inspected.data.entries.map((e: { method: string }) => e.method)).toStrictEqual(['zstd', 'zstd', 'zstd']);
      expect((await call(mcp.client, 'zipfs_open', { path: zip, lazy: true })).isError).toBe(false);
      const read = await call(mcp.client, 'zipfs_read', { path: 'a.txt', offset: 1000, limit: 200 });
      expect(read.data.content).toBe(A_TEXT.slice(1000, 1200));
      const grep = await call(mcp.client, 'zipfs_grep', { pattern: 'needle' });
      expect(grep.data.matches.map((m: { file: string }) => m.file)).toStrictEqual(['notes/b.md']);
      const edited = await call(mcp.client, 'zipfs_edit', {
        path: 'a.txt',
        edits: [{ old_text: 'row 7: alpha', new_text: 'row 7: ALPHA' }],
      });
      expect(edited.data.replacements).toBe(1);
      const synced = await call(mcp.client, 'zipfs_sync', {});
      expect(synced.data).toMatchObject({ synced: true, files_modified: 1 });
      expect(synced.data).not.toHaveProperty('method_changed');
    } finally {
      await mcp.close();
    }
    readersAgree(zip, {
      'a.txt': A_TEXT.replace('row 7: alpha', 'row 7: ALPHA'),
      'notes/b.md': B_TEXT,
      'big.log': BIG_TEXT,
    });
  });

  it('refuses a zstd entry whose data is damaged, naming the entry and zstd', () => {
    const zip = zstdZip();
    const bytes = fs.readFileSync(zip);
    const frame = bytes.indexOf(Buffer.from([0x28, 0xb5, 0x2f, 0xfd])); // a.txt's frame, first in the file
    bytes[frame] = 0;
    fs.writeFileSync(zip, bytes);
    const error = box.run(['open', zip, '--json']).json.error;
    expect(error.code).toBe('ZIP_INVALID');
    expect(error.message).toContain('Entry "a.txt": corrupt zstd data');
  });
});

/** b.txt of the LZMA zip: long enough that 7-Zip does not store it. */
const LONG_B = B_TEXT.repeat(200);

/** An LZMA zip from 7-Zip: a.txt and b.txt, method 14. */
function lzmaZip(): string {
  const src = path.join(box.dir, 'lzma-src');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'a.txt'), A_TEXT);
  fs.writeFileSync(path.join(src, 'b.txt'), LONG_B);
  const zip = path.join(box.dir, 'lzma.zip');
  execFileSync('7zz', ['a', '-tzip', '-mm=LZMA', zip, 'a.txt', 'b.txt'], { cwd: src, stdio: 'ignore' });
  return zip;
}

// Runs where zipfs reads LZMA (its decoder is a codec of its own, merged from another branch).
const lzma = codecFor(14) ? needs('7zz') : { skip: true, why: ' (skipped: this build has no LZMA codec)' };
describe.skipIf(lzma.skip || !hasZstandard)(`a changed entry zipfs cannot write back${lzma.why}`, () => {
  it('is deflated, and sync says so on the CLI (answer and note) and over MCP; the rest stays LZMA', async () => {
    const zip = lzmaZip();
    expect(python(['methods', zip]).toString()).toBe('a.txt 14\nb.txt 14\n');
    expect(box.run(['open', zip, '--json']).code).toBe(0);
    expect(box.run(['write', 'a.txt'], { stdin: 'rewritten\n' }).code).toBe(0);
    expect(box.run(['sync', '--dry-run', '--json']).json.method_changed).toStrictEqual(['a.txt: lzma -> deflate']);
    const synced = box.run(['sync']);
    expect(synced.code).toBe(0);
    expect(synced.stderr).toContain(
      'deflated a changed entry whose method zipfs cannot write: a.txt: lzma -> deflate.',
    );
    expect(python(['methods', zip]).toString()).toBe('a.txt 8\nb.txt 14\n');
    execFileSync('7zz', ['t', zip], { stdio: 'ignore' });
    expect(python(['read', zip, 'b.txt']).toString()).toBe(LONG_B);
    const mcp = await connect(box.home);
    try {
      await call(mcp.client, 'zipfs_write', { path: 'b.txt', content: 'also rewritten\n' });
      const answer = await call(mcp.client, 'zipfs_sync', {});
      expect(answer.data.method_changed).toStrictEqual(['b.txt: lzma -> deflate']);
    } finally {
      await mcp.close();
    }
    expect(python(['read', zip, 'b.txt']).toString()).toBe('also rewritten\n');
  });
});
