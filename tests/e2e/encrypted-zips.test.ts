/**
 * Archives with encrypted entries, written by Info-ZIP's `zip -P`, opened without a password (issue 32, part 1):
 * the other entries are usable, the encrypted ones stay in the zip, listed and marked, a read of them is
 * PERMISSION_DENIED, and sync copies them raw (`unzip -P` still decrypts them after); and with one
 * (ZIPFS_PASSWORD, --password-file, a server-side variable for MCP): ZipCrypto from `zip -P` and WinZip AES from
 * 7-Zip decrypt, a wrong password is refused before anything is extracted, and the password is written nowhere.
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

const PASSWORD = 'pw-Zq7!unique';
const SECRET_TEXT = 'the secret text\n'.repeat(10);

/** Every file under `dir`, as one string (the session's data folder: no password may be in it). */
function allBytes(dir: string): string {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file).isFile())
    .map((file) => fs.readFileSync(file, 'latin1'))
    .join('\n');
}

/** mixed.zip: plain d/a.txt, and s.txt encrypted with ZipCrypto by `zip -P` (`password`). */
function mixedZip(password = 'secret'): string {
  fs.mkdirSync(path.join(box.dir, 'src', 'd'), { recursive: true });
  fs.writeFileSync(path.join(box.dir, 'src', 'd', 'a.txt'), 'plain text\n');
  fs.writeFileSync(path.join(box.dir, 'src', 's.txt'), 'the secret text\n'.repeat(10));
  const zip = path.join(box.dir, 'mixed.zip');
  execFileSync('zip', ['-q', zip, 'd/a.txt'], { cwd: path.join(box.dir, 'src') });
  execFileSync('zip', ['-q', '-P', password, zip, 's.txt'], { cwd: path.join(box.dir, 'src') });
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

describe.skipIf(needs('zip', 'unzip').skip)('an archive from zip -P, with its password', () => {
  it('opens eagerly with ZIPFS_PASSWORD into a private workspace; a wrong one extracts nothing', () => {
    const zip = mixedZip(PASSWORD);
    const wrong = box.run(['open', zip, '--json'], { env: { ZIPFS_PASSWORD: 'nope' } });
    expect(wrong.json.error.code).toBe('PERMISSION_DENIED');
    expect(wrong.json.error.message).toContain('password does not fit entry "s.txt"');
    expect(fs.readdirSync(path.join(box.home, 'workspaces')).filter((n) => !n.startsWith('.'))).toStrictEqual([]);
    const opened = box.run(['open', zip, '--json'], { env: { ZIPFS_PASSWORD: PASSWORD } });
    expect(opened.code).toBe(0);
    const session = path.join(box.home, 'workspaces', 'mixed');
    expect(fs.statSync(session).mode & 0o777).toBe(0o700);
    expect(fs.readFileSync(path.join(session, 'contents', 's.txt'), 'utf8')).toBe(SECRET_TEXT);
    expect(box.run(['ls', '--json']).json.entries.some((e: { encrypted?: string }) => e.encrypted)).toBe(false);
    // A plain entry changed: sync copies the encrypted one raw, and it still decrypts.
    expect(box.run(['write', 'd/a.txt'], { stdin: 'changed\n' }).code).toBe(0);
    const synced = box.run(['sync', '--json']);
    expect(synced.code).toBe(0);
    expect(execFileSync('unzip', ['-P', PASSWORD, '-p', zip, 's.txt']).toString()).toBe(SECRET_TEXT);
    // The encrypted entry changed, and one added: both are written back as WinZip AES-256 under the password.
    expect(box.run(['write', 's.txt'], { stdin: 'new\n' }).code).toBe(0);
    expect(box.run(['write', 'added.txt'], { stdin: 'added\n' }).code).toBe(0);
    const resynced = box.run(['sync', '--json'], { env: { ZIPFS_PASSWORD: PASSWORD } });
    expect(resynced.code).toBe(0);
    box.run(['close']);
    const raw = fs.readFileSync(zip, 'latin1');
    expect(raw).not.toContain('added\n');
    expect(box.run(['inspect', zip, '--json']).json.entries.map((e: { encrypted?: string }) => e.encrypted)).toEqual([
      undefined,
      'aes-256',
      'aes-256',
    ]);
    expect(box.run(['open', zip, '--lazy'], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
    expect(box.run(['read', 's.txt'], { env: { ZIPFS_PASSWORD: PASSWORD } }).stdout).toBe('new\n');
    expect(box.run(['read', 'added.txt'], { env: { ZIPFS_PASSWORD: PASSWORD } }).stdout).toBe('added\n');
    if (!needs('7zz').skip) {
      execFileSync('7zz', ['t', `-p${PASSWORD}`, zip]);
      expect(execFileSync('7zz', ['e', '-so', `-p${PASSWORD}`, zip, 's.txt']).toString()).toBe('new\n');
    }
    const answers = [wrong, opened, synced, resynced].flatMap((run) => [run.stdout, run.stderr]);
    for (const text of [...answers, allBytes(box.home)]) expect(text).not.toContain(PASSWORD);
  });

  it('checks a streamed entry (flag bit 3) by its DOS time, as zip -P from stdin writes it', () => {
    const zip = path.join(box.dir, 'piped.zip');
    execFileSync('zip', ['-q', '-P', PASSWORD, zip, '-'], { input: SECRET_TEXT });
    expect(box.run(['open', zip, '--json'], { env: { ZIPFS_PASSWORD: 'nope' } }).json.error.code).toBe(
      'PERMISSION_DENIED',
    );
    expect(box.run(['open', zip], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
    expect(box.run(['read', '--', '-']).stdout).toBe(SECRET_TEXT);
  });

  it('reads lazily with --password-file, asking again each time; a wrong or missing password is refused', () => {
    const zip = mixedZip(PASSWORD);
    const file = path.join(box.dir, 'pw.txt');
    fs.writeFileSync(file, `${PASSWORD}\n`);
    expect(box.run(['open', zip, '--lazy', '--password-file', file]).code).toBe(0);
    expect(box.run(['--password-file', file, 'read', 's.txt']).stdout).toBe(SECRET_TEXT);
    // grep reads the entry in a worker thread, which gets the password file from --password-file too.
    const found = box.run(['grep', 'secret text', '--json', '--password-file', file]).json;
    expect(found.matches?.length ?? found.results?.length).toBe(10);
    expect(box.run(['grep', 'secret text', '--json']).json.error).toBeUndefined(); // without: skipped, not an error
    expect(box.run(['read', 's.txt', '--json']).json.error.code).toBe('PERMISSION_DENIED');
    const wrong = box.run(['read', 's.txt', '--json'], { env: { ZIPFS_PASSWORD: 'nope' } }).json.error;
    expect(wrong.code).toBe('PERMISSION_DENIED');
    expect(wrong.message).toContain('does not fit');
    expect(allBytes(box.home)).not.toContain(PASSWORD);
  });

  it('decrypts over MCP with the server-side ZIPFS_PASSWORD, never a tool argument', async () => {
    const zip = mixedZip(PASSWORD);
    const mcp = await connect(box.home, { ZIPFS_PASSWORD: PASSWORD });
    try {
      await call(mcp.client, 'zipfs_open', { path: zip, lazy: true });
      const read = await call(mcp.client, 'zipfs_read', { path: 's.txt' });
      expect(read.text).toContain('the secret text');
      expect(read.text).not.toContain(PASSWORD);
      expect(mcp.stderr()).not.toContain(PASSWORD);
    } finally {
      await mcp.close();
    }
    expect(allBytes(box.home)).not.toContain(PASSWORD);
  });
});

describe.skipIf(needs('7zz').skip)('WinZip AES archives from 7-Zip', () => {
  for (const bits of [128, 192, 256]) {
    it(`AES-${bits}: opens with the password, byte for byte; changed and added entries go back as AES`, () => {
      const src = path.join(box.dir, 'src');
      fs.mkdirSync(src);
      const data = new Uint8Array(70_000).map((_, i) => (i * 7919) % 251);
      fs.writeFileSync(path.join(src, 'data.bin'), data);
      fs.writeFileSync(path.join(src, 'notes.txt'), SECRET_TEXT.repeat(50));
      const zip = path.join(box.dir, 'aes.zip');
      execFileSync('7zz', ['a', '-tzip', `-p${PASSWORD}`, `-mem=AES${bits}`, zip, 'data.bin', 'notes.txt'], {
        cwd: src,
      });
      const inspected = box.run(['inspect', zip, '--json']).json.entries;
      expect(inspected.map((e: { encrypted: string }) => e.encrypted)).toStrictEqual([`aes-${bits}`, `aes-${bits}`]);
      expect(box.run(['open', zip, '--json'], { env: { ZIPFS_PASSWORD: 'nope' } }).json.error.code).toBe(
        'PERMISSION_DENIED',
      );
      expect(box.run(['open', zip], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
      const contents = path.join(box.home, 'workspaces', 'aes', 'contents');
      expect(new Uint8Array(fs.readFileSync(path.join(contents, 'data.bin')))).toStrictEqual(data);
      expect(fs.readFileSync(path.join(contents, 'notes.txt'), 'utf8')).toBe(SECRET_TEXT.repeat(50));
      expect(box.run(['write', 'added.txt'], { stdin: 'added\n' }).code).toBe(0);
      expect(box.run(['write', 'notes.txt'], { stdin: 'rewritten\n' }).code).toBe(0);
      expect(box.run(['sync'], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
      execFileSync('7zz', ['t', `-p${PASSWORD}`, zip]);
      expect(execFileSync('7zz', ['e', '-so', `-p${PASSWORD}`, zip, 'notes.txt']).toString()).toBe('rewritten\n');
      expect(execFileSync('7zz', ['e', '-so', `-p${PASSWORD}`, zip, 'added.txt']).toString()).toBe('added\n');
      expect(allBytes(box.home)).not.toContain(PASSWORD);
    });
  }
});
