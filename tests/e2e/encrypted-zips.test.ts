/**
 * Archives with encrypted entries, written by Info-ZIP's `zip -P`, opened without a password (issue 32, part 1):
 * the other entries are usable, the encrypted ones stay in the zip, listed and marked, a read of them is
 * PERMISSION_DENIED, and sync copies them raw (`unzip -P` still decrypts them after).
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

/** mixed.zip: plain d/a.txt, and s.txt encrypted with ZipCrypto by `zip -P secret`. */
function mixedZip(): string {
  fs.mkdirSync(path.join(box.dir, 'src', 'd'), { recursive: true });
  fs.writeFileSync(path.join(box.dir, 'src', 'd', 'a.txt'), 'plain text\n');
  fs.writeFileSync(path.join(box.dir, 'src', 's.txt'), 'the secret text\n'.repeat(10));
  const zip = path.join(box.dir, 'mixed.zip');
  execFileSync('zip', ['-q', zip, 'd/a.txt'], { cwd: path.join(box.dir, 'src') });
  execFileSync('zip', ['-q', '-P', 'secret', zip, 's.txt'], { cwd: path.join(box.dir, 'src') });
  return zip;
}

describe.skipIf(needs('zip', 'unzip').skip)('an archive with encrypted entries, without a password', () => {
  it('inspect marks the encrypted entry and says open keeps it in the zip', () => {
    const out = box.run(['inspect', mixedZip(), '--json']).json;
    const byName = new Map(out.entries.map((e: { name: string }) => [e.name, e]));
    expect(byName.get('s.txt')).toMatchObject({ encrypted: 'zipcrypto' });
    expect(byName.get('d/a.txt')).not.toHaveProperty('encrypted');
    expect(out.warnings.join('\n')).toContain('1 entry is encrypted');
  });

  for (const mode of [[], ['--lazy']]) {
    it(`opens ${mode.length ? 'lazily' : 'eagerly'}: plain entries usable, encrypted ones refused`, () => {
      const zip = mixedZip();
      expect(box.run(['open', zip, ...mode, '--json']).code).toBe(0);
      const ls = box.run(['ls', '-r', '--json']).json.entries;
      expect(ls.find((e: { name: string }) => e.name === 's.txt')).toMatchObject({ encrypted: 'zipcrypto' });
      expect(box.run(['read', 'd/a.txt']).stdout).toBe('plain text\n');
      const refused = box.run(['read', 's.txt', '--json']).json.error;
      expect(refused.code).toBe('PERMISSION_DENIED');
      expect(refused.message).toContain('encrypted (zipcrypto)');
      expect(box.run(['extract', 's.txt', '--json']).json.error.code).toBe('PERMISSION_DENIED');
      expect(box.run(['extract', '--json']).code).toBe(0); // everything else, no refusal
      expect(fs.existsSync(path.join(box.home, 'workspaces', 'mixed', 'contents', 's.txt'))).toBe(false);
      expect(box.run(['status', '--json']).json.deleted ?? []).toStrictEqual([]);
      // A change of the plain entries syncs; the encrypted one is copied raw and still decrypts.
      expect(box.run(['write', 'd/a.txt'], { stdin: 'changed\n' }).code).toBe(0);
      expect(box.run(['write', 'd/new.txt'], { stdin: 'new\n' }).code).toBe(0);
      expect(box.run(['sync', '--json']).code).toBe(0);
      execFileSync('unzip', ['-P', 'secret', '-tq', zip]);
      expect(execFileSync('unzip', ['-P', 'secret', '-p', zip, 's.txt']).toString()).toBe(
        'the secret text\n'.repeat(10),
      );
      expect(execFileSync('unzip', ['-p', zip, 'd/a.txt']).toString()).toBe('changed\n');
    });
  }

  it('refuses a sync that would write a changed encrypted entry back in plain, writing nothing', () => {
    const zip = mixedZip();
    box.run(['open', zip]);
    const before = fs.readFileSync(zip);
    expect(box.run(['write', 's.txt'], { stdin: 'overwritten\n' }).code).toBe(0);
    const refused = box.run(['sync', '--json']).json.error;
    expect(refused.code).toBe('PERMISSION_DENIED');
    expect(refused.message).toContain('s.txt');
    expect(fs.readFileSync(zip)).toStrictEqual(before);
  });

  it('is the same over MCP: listed, refused when read', async () => {
    const zip = mixedZip();
    const mcp = await connect(box.home);
    try {
      await call(mcp.client, 'zipfs_open', { path: zip });
      const listed = await call(mcp.client, 'zipfs_ls', { recursive: true });
      expect(listed.data.entries.find((e: { name: string }) => e.name === 's.txt').encrypted).toBe('zipcrypto');
      const read = await mcp.client.callTool({ name: 'zipfs_read', arguments: { path: 's.txt' } });
      expect(read.isError).toBe(true);
      expect(JSON.stringify(read)).toContain('PERMISSION_DENIED');
    } finally {
      await mcp.close();
    }
  });
});
