/**
 * Zips whose entries are LZMA (method 14) or xz (method 95), written by their real writers: 7-Zip
 * (`-mm=LZMA`, `-mm=XZ`) and Python's zipfile (ZIP_LZMA). Through the compiled binary on the CLI
 * and over MCP: open (a 9 MB entry streams through the decoder's ring), read, grep, edit and sync;
 * the changed entry is written as deflate, the unchanged ones are copied raw (same method, same
 * bytes), and 7-Zip tests the synced archive. (bsdtar 3.6 here writes neither method in a zip.)
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

const NOTES = `first line\nthe needle is here\n${'a line that deflate shrinks\n'.repeat(20)}`;
const SMALL = 'a small text with a needle in it\n'.repeat(50);

/** 9 MB of text by default (past the 8 MB above which entries stream), one needle near its end. */
function bigText(rows = 200_000): string {
  const lines = Array.from({ length: rows }, (_, i) => `row ${i} value ${(i * 7919) % 10007} ${i % 3 ? 'a' : 'b'}`);
  lines[rows - 10] = 'the big needle';
  return `${lines.join('\n')}\n`.padEnd(rows * 45, '.');
}

/** Writes the three files and zips them with `writer`; returns the zip's path. */
function writeZip(writer: '7z-lzma' | '7z-xz' | 'python-lzma'): string {
  const src = path.join(box.dir, 'src');
  fs.mkdirSync(path.join(src, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(src, 'notes.txt'), NOTES);
  fs.writeFileSync(path.join(src, 'docs', 'small.txt'), SMALL);
  // Python's zipfile compresses at LZMA's preset 6, seconds for 9 MB here: it gets 1 MB (7-Zip's entries stream).
  fs.writeFileSync(path.join(src, 'docs', 'big.txt'), bigText(writer === 'python-lzma' ? 22_000 : undefined));
  const zip = path.join(box.dir, 'archive.zip');
  const files = ['notes.txt', 'docs/small.txt', 'docs/big.txt'];
  if (writer === 'python-lzma') {
    const script =
      'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_LZMA) as z:\n' +
      '    for name in sys.argv[2:]: z.write(name)';
    execFileSync('python3', ['-c', script, zip, ...files], { cwd: src });
  } else {
    const method = writer === '7z-lzma' ? 'LZMA' : 'XZ';
    execFileSync('7zz', ['a', '-tzip', `-mm=${method}`, '-mx=1', zip, ...files], { cwd: src, stdio: 'ignore' });
  }
  return zip;
}

/** Each entry's method and a hash of its stored (compressed) bytes, as Python's zipfile finds them. */
function rawEntries(zip: string): Record<string, { method: number; raw: string }> {
  const script = `
import hashlib, json, struct, sys, zipfile
out = {}
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[1], 'rb') as f:
    for i in z.infolist():
        f.seek(i.header_offset)
        name, extra = struct.unpack('<HH', f.read(30)[26:30])
        f.seek(i.header_offset + 30 + name + extra)
        out[i.filename] = {'method': i.compress_type, 'raw': hashlib.sha256(f.read(i.compress_size)).hexdigest()}
print(json.dumps(out))`;
  return JSON.parse(execFileSync('python3', ['-c', script, zip]).toString());
}

function sevenZipReads(zip: string, name: string): string {
  execFileSync('7zz', ['t', zip], { stdio: 'ignore' }); // throws unless every entry tests OK
  return execFileSync('7zz', ['x', '-so', zip, name], { maxBuffer: 1 << 26 }).toString();
}

const tools = needs('7zz', 'python3');

describe.skipIf(tools.skip)(`LZMA and xz zips from their real writers${tools.why}`, () => {
  for (const writer of ['7z-lzma', '7z-xz', 'python-lzma'] as const) {
    it(`${writer}: opens, reads, greps, and syncs an edit, copying the unchanged entries raw`, () => {
      const zip = writeZip(writer);
      const method = writer === '7z-xz' ? 95 : 14;
      const before = rawEntries(zip);
      expect(before['docs/big.txt']!.method).toBe(method);
      const inspect = box.run(['inspect', zip, '--json']);
      expect(inspect.code).toBe(0);
      expect(box.run(['open', zip, '--json']).code).toBe(0);
      expect(box.run(['read', 'docs/small.txt']).stdout).toBe(SMALL);
      const found = box.run(['grep', 'needle', '--json']).json;
      expect(found.matches.map((m: { file: string }) => m.file).sort()).toStrictEqual([
        'docs/big.txt',
        ...Array(50).fill('docs/small.txt'),
        'notes.txt',
      ]);
      const edited = box.run(['edit', 'notes.txt', '--old', 'needle', '--new', 'pin', '--json']);
      expect(edited.code).toBe(0);
      expect(box.run(['sync', '--json']).code).toBe(0);
      const after = rawEntries(zip);
      expect(after['docs/big.txt']).toStrictEqual(before['docs/big.txt']!);
      expect(after['docs/small.txt']).toStrictEqual(before['docs/small.txt']!);
      expect(after['notes.txt']!.method).toBe(8); // zipfs writes neither LZMA nor xz: the changed entry is deflated
      expect(sevenZipReads(zip, 'notes.txt')).toBe(NOTES.replace('needle', 'pin'));
      expect(sevenZipReads(zip, 'docs/big.txt')).toBe(bigText(writer === 'python-lzma' ? 22_000 : undefined));
    }, 60_000);
  }

  it('opens lazily and reads a streamed xz entry by page', () => {
    const zip = writeZip('7z-xz');
    expect(box.run(['open', zip, '--lazy', '--json']).code).toBe(0);
    const at = bigText().indexOf('the big needle');
    const read = box.run(['read', 'docs/big.txt', '--offset', String(at), '--limit', '100', '--json']);
    expect(read.code).toBe(0);
    expect(read.json.content.startsWith('the big needle\nrow 199991 ')).toBe(true);
  }, 60_000);

  it('works over MCP: open, read, grep, edit and sync an xz zip', async () => {
    const zip = writeZip('7z-xz');
    const before = rawEntries(zip);
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_open', { path: zip })).isError).toBe(false);
      const read = await call(mcp.client, 'zipfs_read', { path: 'notes.txt' });
      expect(read.data.content).toContain('the needle is here');
      const found = await call(mcp.client, 'zipfs_grep', { pattern: 'big needle' });
      expect(found.data.matches.map((m: { file: string }) => m.file)).toStrictEqual(['docs/big.txt']);
      const edited = await call(mcp.client, 'zipfs_edit', {
        path: 'notes.txt',
        edits: [{ old_text: 'needle', new_text: 'pin' }],
        expected_sha256: read.data.sha256,
      });
      expect(edited.data.replacements).toBe(1);
      expect((await call(mcp.client, 'zipfs_sync')).isError).toBe(false);
    } finally {
      await mcp.close();
    }
    const after = rawEntries(zip);
    expect(after['docs/big.txt']).toStrictEqual(before['docs/big.txt']!);
    expect(after['notes.txt']!.method).toBe(8);
    expect(sevenZipReads(zip, 'notes.txt')).toBe(NOTES.replace('needle', 'pin'));
  }, 60_000);

  it('refuses an LZMA entry whose header declares less than its data holds, extracting nothing', () => {
    // Python writes the zip; its declared size is then lowered in both headers, as a bomb's would be.
    const zip = path.join(box.dir, 'lying.zip');
    const script = `
import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_LZMA) as z: z.writestr("a.txt", "lying " * 5000)
data = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", data, 22, 1000)
struct.pack_into("<I", data, data.find(b"PK\\x01\\x02") + 24, 1000)
open(sys.argv[1], "wb").write(data)`;
    execFileSync('python3', ['-c', script, zip]);
    const refused = box.run(['open', zip, '--json']).json.error;
    expect(refused.code).toBe('ZIP_BOMB_DETECTED');
    expect(refused.message).toContain('"a.txt" inflates to more than the 1000 bytes its header declares');
    expect(fs.readdirSync(path.join(box.home, 'workspaces')).filter((n) => !n.startsWith('.'))).toStrictEqual([]);
  });
});
