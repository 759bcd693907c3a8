import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip, symlinkZip } from '../helpers/fixtures.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { corpusPath } from '../helpers/corpus.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

const workspaces = () =>
  fs.existsSync(path.join(box.home, 'workspaces')) ? fs.readdirSync(path.join(box.home, 'workspaces')) : [];

describe('zipfs open', () => {
  it('extracts an archive into a session named after the file', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const result = box.run(['open', zip, '--json']);
    expect(result.code).toBe(0);
    expect(result.json).toStrictEqual({
      session_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'reports',
      workspace_path: path.join(box.home, 'workspaces', 'reports', 'contents'),
      file_count: 6,
      extracted_size_bytes: expect.any(Number),
    });
    const root = result.json.workspace_path;
    expect(fs.readFileSync(path.join(root, 'data/config.json'), 'utf8')).toContain('"debug": true');
    expect(fs.statSync(path.join(root, 'empty')).isDirectory()).toBe(true);
    expect(
      fs.readFileSync(path.join(box.home, 'workspaces/reports/manifest.jsonl'), 'utf8').trim().split('\n'),
    ).toHaveLength(10); // the session record and 9 entries
  });

  it('takes no settings and runs no code from a .env or bunfig.toml in the working folder', () => {
    // A compiled Bun program loads both by default: a folder someone else made (a cloned repository)
    // could set ZIPFS_* limits, or have its code run by a preload.
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    fs.writeFileSync(path.join(box.dir, '.env'), 'ZIPFS_MAX_ENTRIES=1\n');
    const marker = path.join(box.dir, 'preloaded');
    fs.writeFileSync(
      path.join(box.dir, 'preload.ts'),
      `require('node:fs').writeFileSync(${JSON.stringify(marker)}, '');\n`,
    );
    fs.writeFileSync(path.join(box.dir, 'bunfig.toml'), 'preload = ["./preload.ts"]\n');
    const result = box.run(['open', zip, '--json'], { cwd: box.dir });
    expect(result.json.file_count).toBe(6);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('prints a readable summary without --json', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const result = box.run(['open', zip]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Opened session "reports": 6 files');
  });

  it('resolves a relative path from the working directory', () => {
    writeZip(box.dir, 'reports.zip', reportsZip());
    expect(box.run(['open', 'reports.zip', '--json'], { cwd: box.dir }).json.name).toBe('reports');
  });

  it('gives a derived name a numeric suffix and refuses an explicit name in use', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    expect(box.run(['open', zip, '--json']).json.name).toBe('reports');
    fs.mkdirSync(path.join(box.dir, 'other'));
    const another = writeZip(path.join(box.dir, 'other'), 'reports.zip', reportsZip()); // another file of the same name
    expect(box.run(['open', another, '--json']).json.name).toBe('reports-2');
    const clash = box.run(['open', zip, '--name', 'reports', '--json']);
    expect(clash.code).toBe(ERROR_CODES.NAME_COLLISION.exit);
    expect(clash.json.error.code).toBe('NAME_COLLISION');
    expect(clash.json.error.message).toContain('choose another name');
  });

  it('refuses a session name outside the safe character set', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const result = box.run(['open', zip, '--name', '../evil', '--json']);
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(workspaces()).toStrictEqual([]);
  });

  it('reports a missing zip as ZIP_NOT_FOUND', () => {
    const result = box.run(['open', path.join(box.dir, 'nope.zip'), '--json']);
    expect(result.code).toBe(ERROR_CODES.ZIP_NOT_FOUND.exit);
    expect(result.json.error.code).toBe('ZIP_NOT_FOUND');
  });

  it('reports a file that is not a zip as ZIP_INVALID and leaves nothing behind', () => {
    const result = box.run(['open', corpusPath('go/readme.notzip'), '--json']);
    expect(result.json.error.code).toBe('ZIP_INVALID');
    expect(workspaces()).toStrictEqual([]);
  });

  it('refuses traversal names with PATH_TRAVERSAL naming the entry, writing nothing', () => {
    for (const name of ['../evil.txt', '/etc/evil', 'C:\\evil.txt', 'a\\..\\..\\evil.txt', 'ok/../../evil.txt']) {
      const zip = writeZip(
        box.dir,
        'bad.zip',
        rawZip([
          { name: 'fine.txt', data: 'ok' },
          { name, data: 'x' },
        ]),
      );
      const result = box.run(['open', zip, '--json']);
      expect(result.json.error.code).toBe('PATH_TRAVERSAL');
      // quoted, a backslash escaped, as git quotes names
      expect(result.json.error.message).toContain(`Entry ${JSON.stringify(name)}`);
      expect(workspaces()).toStrictEqual([]);
      expect(fs.existsSync(path.join(box.dir, 'evil.txt'))).toBe(false);
    }
  });

  it('refuses the corpus archives with unsafe names', () => {
    for (const file of ['go/inline-cve-2021-27919-dotdot.zip', 'go/inline-cve-2021-41772-slash-names.zip']) {
      expect(box.run(['open', corpusPath(file), '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    }
    expect(workspaces()).toStrictEqual([]);
  });

  it('refuses a file and a folder at one path (dupdir.zip) and duplicate names', () => {
    expect(box.run(['open', corpusPath('go/dupdir.zip'), '--json']).json.error.code).toBe('ZIP_INVALID');
    const zip = writeZip(
      box.dir,
      'dup.zip',
      rawZip([
        { name: 'a.txt', data: '1' },
        { name: 'a.txt', data: '2' },
      ]),
    );
    const result = box.run(['open', zip, '--json']);
    expect(result.json.error.code).toBe('ZIP_INVALID');
    expect(result.json.error.message).toContain('a.txt');
    expect(workspaces()).toStrictEqual([]);
  });

  it('treats backslashes as separators (zipdir_backslash.zip)', () => {
    const opened = box.run(['open', corpusPath('cpython/zipdir_backslash.zip'), '--json']).json;
    expect(fs.statSync(path.join(opened.workspace_path, 'a/b/c')).isFile()).toBe(true);
    expect(fs.statSync(path.join(opened.workspace_path, 'd/e')).isDirectory()).toBe(true);
  });

  it('extracts symlink entries as regular files holding the target, never as links', () => {
    const zip = writeZip(box.dir, 'links.zip', symlinkZip());
    const opened = box.run(['open', zip, '--json']).json;
    const file = path.join(opened.workspace_path, 'escape');
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('../../etc/passwd');
    const listed = box.run(['ls', '--json']).json.entries;
    expect(listed.find((e: { name: string }) => e.name === 'escape').type).toBe('symlink');
  });

  it('refuses an entry whose data inflates past its declared size (ZIP_BOMB_DETECTED)', () => {
    const zip = writeZip(
      box.dir,
      'liar.zip',
      rawZip([{ name: 'big.txt', data: 'a'.repeat(100_000), declaredSize: 1000 }]),
    );
    const result = box.run(['open', zip, '--json']);
    expect(result.json.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(workspaces()).toStrictEqual([]);
  });

  it('refuses overlapping entries (ZIP_BOMB_DETECTED)', () => {
    const zip = writeZip(
      box.dir,
      'overlap.zip',
      rawZip([
        { name: 'a.txt', data: 'a'.repeat(5000) },
        { name: 'b.txt', shareDataOf: 0 },
      ]),
    );
    expect(box.run(['open', zip, '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
  });

  it('applies the limits from the environment (entries, bytes, ratios)', () => {
    const zip = writeZip(
      box.dir,
      'r.zip',
      rawZip([
        { name: 'zeros.txt', data: 'a'.repeat(200_000) },
        { name: 'b.txt', data: 'b' },
        { name: 'c.txt', data: 'c' },
      ]),
    );
    const cases: [Record<string, string>, RegExp][] = [
      [{ ZIPFS_MAX_ENTRIES: '2' }, /3 entries.*ZIPFS_MAX_ENTRIES/],
      [{ ZIPFS_MAX_EXTRACTED_BYTES: '100000' }, /ZIPFS_MAX_EXTRACTED_BYTES/],
      [{ ZIPFS_RATIO_FLOOR_BYTES: '1000' }, /per-entry.*ZIPFS_MAX_ENTRY_RATIO/],
      [{ ZIPFS_RATIO_FLOOR_BYTES: '1000', ZIPFS_MAX_ENTRY_RATIO: '100000' }, /overall.*ZIPFS_MAX_RATIO/],
    ];
    expect(box.run(['open', zip, '--json']).code).toBe(0); // the defaults let this small archive through
    expect(box.run(['close', '--json']).code).toBe(0);
    for (const [env, hint] of cases) {
      const result = box.run(['open', zip, '--json'], { env });
      expect(result.json.error.code).toBe('ZIP_BOMB_DETECTED');
      expect(result.json.error.message).toMatch(hint);
    }
    expect(workspaces()).toStrictEqual([]);
  });

  it('refuses a malformed limit variable instead of ignoring it', () => {
    const zip = writeZip(box.dir, 'r.zip', reportsZip());
    const result = box.run(['open', zip, '--json'], { env: { ZIPFS_MAX_ENTRIES: 'lots' } });
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(result.json.error.message).toContain('ZIPFS_MAX_ENTRIES');
  });

  it('refuses strongly encrypted entries and unknown methods as ZIP_INVALID naming the entry', () => {
    const encrypted = writeZip(box.dir, 'enc.zip', rawZip([{ name: 'secret.txt', data: 'x', flags: 0x41 }]));
    const enc = box.run(['open', encrypted, '--json']).json.error;
    expect(enc.code).toBe('ZIP_INVALID');
    expect(enc.message).toContain('secret.txt');
    expect(enc.message).toContain('encrypted');
  });

  it('removes staging folders left by a killed open', () => {
    const stale = path.join(box.home, 'workspaces', '.open-999999-dead');
    fs.mkdirSync(path.join(stale, 'contents'), { recursive: true });
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    expect(box.run(['open', zip]).code).toBe(0);
    expect(workspaces()).toStrictEqual(['reports']);
  });
});

describe('zipfs open on both cores', () => {
  it('extracts a large archive with a second thread, every file intact', () => {
    const entries = Array.from({ length: 3000 }, (_, i) => ({
      name: `d${i % 7}/f${i}.txt`,
      data: `file ${i}\n`.repeat((i % 5) + 1),
    }));
    const opened = box.run(['open', writeZip(box.dir, 'many.zip', rawZip(entries)), '--json']).json;
    expect(opened.file_count).toBe(3000);
    for (const i of [0, 1499, 1500, 2999])
      expect(fs.readFileSync(path.join(opened.workspace_path, `d${i % 7}/f${i}.txt`), 'utf8')).toBe(
        `file ${i}\n`.repeat((i % 5) + 1),
      );
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 3000,
    });
  });

  it('fails whole, leaving nothing, when the second thread meets a damaged entry', () => {
    const entries = Array.from({ length: 3000 }, (_, i) => ({ name: `f${i}.txt`, data: `file ${i}\n` }));
    const bytes = rawZip(entries);
    // Corrupt the data of an entry in the second half (after its 30-byte header and name).
    const marker = Buffer.from(bytes).indexOf('f2900.txt');
    const at = marker + 'f2900.txt'.length;
    bytes[at] = bytes[at]! ^ 0xff;
    const result = box.run(['open', writeZip(box.dir, 'bad.zip', bytes), '--json']);
    expect(result.json.error.code).toBe('ZIP_INVALID');
    expect(result.json.error.message).toContain('f2900.txt');
    expect(workspaces()).toStrictEqual([]);
  });
});
