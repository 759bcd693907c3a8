/**
 * Deflate64 archives (method 9, issue 32 point 4), as 7-Zip writes them with `-mm=Deflate64` (Windows Explorer
 * writes the same method for inputs past about 2 GB), through the compiled binary: open eagerly and lazily, read,
 * grep, and over MCP; an edit syncs with the unchanged Deflate64 entries copied raw (same bytes, method 9) and the
 * changed one written as deflate, which zipfs can write; 7-Zip reads the synced archive back.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { FileSource, locateEntryData, readCentralDirectory } from '../../src/zip/index.ts';
import { sandbox } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const TEXT = Array.from({ length: 4000 }, (_, line) => `line ${line}: value ${(line * 7919) % 1000}\n`).join('');
const NOTES = 'keep me as I am\n'.repeat(500);

/** Noise repeated 45 KiB apart: only Deflate64's 64 KiB window reaches back to the repeat. */
function repetitive(): Buffer {
  let state = 12_345;
  const unit = Buffer.alloc(45_000);
  for (let at = 0; at < unit.length; at++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    unit[at] = state >>> 24;
  }
  return Buffer.concat(Array.from({ length: 8 }, (_, round) => [unit, Buffer.alloc(500 + round * 300, round)]).flat());
}

/** d64.zip from 7-Zip: text.txt, docs/notes.txt and data.bin, all Deflate64. */
function deflate64Zip(): string {
  const src = path.join(box.dir, 'src');
  fs.mkdirSync(path.join(src, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(src, 'text.txt'), TEXT);
  fs.writeFileSync(path.join(src, 'docs', 'notes.txt'), NOTES);
  fs.writeFileSync(path.join(src, 'data.bin'), repetitive());
  const zip = path.join(box.dir, 'd64.zip');
  execFileSync('7zz', ['a', '-tzip', '-mm=Deflate64', zip, 'text.txt', 'docs/notes.txt', 'data.bin'], {
    cwd: src,
    stdio: 'ignore',
  });
  return zip;
}

/** Each entry's method and its compressed bytes as they sit in the zip. */
function rawEntries(zip: string): Map<string, { method: number; data: Buffer }> {
  const source = new FileSource(zip);
  try {
    const entries = new Map<string, { method: number; data: Buffer }>();
    for (const entry of readCentralDirectory(source).entries) {
      const span = locateEntryData(source, entry);
      entries.set(entry.name, {
        method: entry.method,
        data: Buffer.from(source.read(span.dataOffset, entry.compressedSize)),
      });
    }
    return entries;
  } finally {
    source.close();
  }
}

function sevenZipReads(zip: string, name: string): string {
  execFileSync('7zz', ['t', zip], { stdio: 'ignore' });
  return execFileSync('7zz', ['x', '-so', zip, name]).toString();
}

describe.skipIf(needs('7zz').skip)(`a Deflate64 archive from 7-Zip${needs('7zz').why}`, () => {
  it('inspect names the method', () => {
    const zip = deflate64Zip();
    const entries = box.run(['inspect', zip, '--json']).json.entries;
    expect(entries.map((e: { method: string }) => e.method)).toStrictEqual(['deflate64', 'deflate64', 'deflate64']);
    // The noise shrinks only by matches 45 KiB back: 7-Zip used distances plain deflate does not have.
    const data = entries.find((e: { name: string }) => e.name === 'data.bin');
    expect(data.compressed_size).toBeLessThan(data.size / 4);
    expect(Object.values(Object.fromEntries(rawEntries(zip))).map((e) => e.method)).toStrictEqual([9, 9, 9]);
  });

  for (const mode of [[], ['--lazy']]) {
    it(`opens ${mode.length ? 'lazily' : 'eagerly'}, reads, greps; an edit syncs, the rest copied raw`, () => {
      const zip = deflate64Zip();
      const before = rawEntries(zip);
      expect(box.run(['open', zip, ...mode, '--json']).code).toBe(0);
      expect(box.run(['read', 'docs/notes.txt']).stdout).toBe(NOTES);
      expect(box.run(['extract', 'data.bin']).code).toBe(0);
      const contents = path.join(box.home, 'workspaces', 'd64', 'contents');
      expect(fs.readFileSync(path.join(contents, 'data.bin')).equals(repetitive())).toBe(true);
      expect(box.run(['read', 'text.txt', '--json']).json.content).toStartWith('line 0: value 0\n');
      const found = box.run(['grep', 'value 919$', '--json']).json.matches;
      expect(found.map((m: { file: string; line_number: number }) => [m.file, m.line_number])).toContainEqual([
        'text.txt',
        2,
      ]);
      const edited = box.run(['edit', 'text.txt', '--old', 'line 3999: value', '--new', 'LAST LINE:', '--json']);
      expect(edited.code).toBe(0);
      const synced = box.run(['sync', '--json']);
      expect(synced.code).toBe(0);
      expect(synced.json).toMatchObject({ synced: true, files_modified: 1 });
      const after = rawEntries(zip);
      // Unchanged: the very bytes 7-Zip wrote, still method 9. Changed: written as deflate, which zipfs writes.
      for (const name of ['docs/notes.txt', 'data.bin']) {
        expect(after.get(name)!.method).toBe(9);
        expect(after.get(name)!.data.equals(before.get(name)!.data)).toBe(true);
      }
      expect(after.get('text.txt')!.method).toBe(8);
      expect(sevenZipReads(zip, 'text.txt')).toBe(TEXT.replace('line 3999: value', 'LAST LINE:'));
      expect(execFileSync('7zz', ['x', '-so', zip, 'data.bin']).equals(repetitive())).toBe(true);
    });
  }

  it('streams an entry past 8 MiB (open extracts it piece by piece) and copies it raw on sync', () => {
    // 9 MB: just past the size open streams instead of decoding whole (src/files/extract-files.ts).
    const big = Array.from({ length: 560_000 }, (_, line) => `${line} ${(line * 48_271) % 65_521} row\n`).join('');
    expect(big.length).toBeGreaterThan(8 << 20);
    const src = path.join(box.dir, 'big');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'big.txt'), big);
    fs.writeFileSync(path.join(src, 'small.txt'), 'small\n');
    const zip = path.join(box.dir, 'big.zip');
    execFileSync('7zz', ['a', '-tzip', '-mm=Deflate64', zip, 'big.txt', 'small.txt'], { cwd: src, stdio: 'ignore' });
    const before = rawEntries(zip);
    expect(box.run(['open', zip, '--json']).code).toBe(0);
    expect(fs.readFileSync(path.join(box.home, 'workspaces', 'big', 'contents', 'big.txt'), 'utf8') === big).toBe(true);
    expect(box.run(['write', 'small.txt'], { stdin: 'changed\n' }).code).toBe(0);
    expect(box.run(['sync', '--json']).code).toBe(0);
    expect(rawEntries(zip).get('big.txt')!.data.equals(before.get('big.txt')!.data)).toBe(true);
    expect(sevenZipReads(zip, 'small.txt')).toBe('changed\n');
  });

  it('reads Deflate64 under WinZip AES-256 (7-Zip -mem=AES256), with the password', () => {
    const src = path.join(box.dir, 'aes');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'data.bin'), repetitive());
    const zip = path.join(box.dir, 'aes.zip');
    execFileSync('7zz', ['a', '-tzip', '-mm=Deflate64', '-mem=AES256', '-ppw-d64', zip, 'data.bin'], {
      cwd: src,
      stdio: 'ignore',
    });
    const env = { ZIPFS_PASSWORD: 'pw-d64' };
    expect(box.run(['inspect', zip, '--json']).json.entries[0]).toMatchObject({
      method: 'deflate64',
      encrypted: 'aes-256',
    });
    expect(box.run(['open', zip, '--json'], { env }).code).toBe(0);
    const contents = path.join(box.home, 'workspaces', 'aes', 'contents');
    expect(fs.readFileSync(path.join(contents, 'data.bin')).equals(repetitive())).toBe(true);
  });

  for (const lazy of [false, true]) {
    it(`is the same over MCP: opened ${lazy ? 'lazily' : 'eagerly'}, read, grepped, edited and synced`, async () => {
      const zip = deflate64Zip();
      const before = rawEntries(zip);
      const mcp = await connect(box.home);
      try {
        expect((await call(mcp.client, 'zipfs_open', { path: zip, lazy })).isError).toBe(false);
        expect((await call(mcp.client, 'zipfs_read', { path: 'docs/notes.txt' })).data.content).toBe(NOTES);
        const grep = await call(mcp.client, 'zipfs_grep', { pattern: 'as I am', output: 'files' });
        expect(JSON.stringify(grep.data)).toContain('docs/notes.txt');
        const edit = await call(mcp.client, 'zipfs_edit', {
          path: 'text.txt',
          edits: [{ old_text: 'line 0: value 0\n', new_text: 'FIRST\n' }],
        });
        expect(edit.isError).toBe(false);
        expect((await call(mcp.client, 'zipfs_sync', {})).data).toMatchObject({ synced: true, files_modified: 1 });
      } finally {
        await mcp.close();
      }
      const after = rawEntries(zip);
      expect(after.get('data.bin')!.data.equals(before.get('data.bin')!.data)).toBe(true);
      expect(after.get('data.bin')!.method).toBe(9);
      expect(sevenZipReads(zip, 'text.txt')).toBe(TEXT.replace('line 0: value 0\n', 'FIRST\n'));
    });
  }
});
