import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { readSessionRecord } from '../../src/session/manifest.ts';
import { reportsSandbox, sandbox } from '../helpers/cli.ts';
import { REPORT_FILES, binaryBytes, reportsZip } from '../helpers/fixtures.ts';

const withUnzip = needs('unzip');
const withZipUnzip = needs('zip', 'unzip');
const withPython = needs('python3');

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => ({ box, zip, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

const status = () => box.run(['status', '--json']).json;

describe('zipfs write', () => {
  it('writes text from the argument, creating folders, atomically', () => {
    expect(box.run(['write', 'new/deep/file.txt', 'hello', '--json']).json).toStrictEqual({
      written: true,
      size_bytes: 5,
    });
    expect(fs.readFileSync(path.join(root, 'new/deep/file.txt'), 'utf8')).toBe('hello');
    expect(fs.readdirSync(path.join(root, 'new/deep'))).toStrictEqual(['file.txt']); // no temporary left
  });

  it('takes binary content from stdin unchanged, or base64', () => {
    const bytes = Buffer.from(binaryBytes(1000));
    const piped = box.run(['write', 'blob.bin', '--json'], { stdin: bytes.toString('latin1') });
    expect(piped.json.size_bytes).toBeGreaterThan(0);
    expect(
      box.run(['write', 'b64.bin', bytes.toString('base64'), '--encoding', 'base64', '--json']).json.size_bytes,
    ).toBe(1000);
    expect(fs.readFileSync(path.join(root, 'b64.bin')).equals(bytes)).toBe(true);
    expect(box.run(['write', 'bad.bin', 'not base64!', '--encoding', 'base64', '--json']).json.error.code).toBe(
      'INVALID_INPUT',
    );
  });

  it('refuses to create folders with --no-create-dirs, to write a folder, or to escape', () => {
    expect(box.run(['write', 'nope/x.txt', 'x', '--no-create-dirs', '--json']).json.error.code).toBe('PATH_NOT_FOUND');
    expect(box.run(['write', 'data', 'x', '--json']).json.error.code).toBe('INVALID_INPUT');
    expect(box.run(['write', '../escape.txt', 'x', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    fs.symlinkSync(box.dir, path.join(root, 'out'));
    expect(box.run(['write', 'out/escape.txt', 'x', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    fs.symlinkSync(path.join(box.dir, 'reports.zip'), path.join(root, 'link-to-zip'));
    expect(box.run(['write', 'link-to-zip', 'x', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    expect(fs.existsSync(path.join(box.dir, 'escape.txt'))).toBe(false);
    expect(fs.readFileSync(zip).equals(Buffer.from(reportsZip()))).toBe(true);
  });
});

describe('zipfs delete', () => {
  it('deletes files, and folders only with -r', () => {
    expect(box.run(['delete', 'README.txt', '--json']).json).toStrictEqual({ deleted: true, path: 'README.txt' });
    const refused = box.run(['delete', 'data', '--json']);
    expect(refused.json.error.code).toBe('INVALID_INPUT');
    expect(refused.json.error.message).toContain('recursive');
    expect(box.run(['delete', '/data/', '-r', '--json']).json).toStrictEqual({ deleted: true, path: 'data' });
    expect(box.run(['delete', 'empty', '--json']).json.deleted).toBe(true); // an empty folder needs no -r
    expect(box.run(['delete', 'missing', '--json']).json.error.code).toBe('PATH_NOT_FOUND');
    expect(box.run(['delete', '/', '-r', '--json']).json.error.code).toBe('INVALID_INPUT');
  });

  it('removes a link, never what it points at', () => {
    const outside = path.join(box.dir, 'keep.txt');
    fs.writeFileSync(outside, 'keep');
    fs.symlinkSync(outside, path.join(root, 'link'));
    expect(box.run(['delete', 'link', '--json']).json.deleted).toBe(true);
    expect(fs.readFileSync(outside, 'utf8')).toBe('keep');
  });
});

describe('zipfs status', () => {
  it('is clean after open, and shows changes made by any program', () => {
    expect(status()).toStrictEqual({ modified: [], added: [], deleted: [], unchanged_count: 9 });
    fs.writeFileSync(path.join(root, 'data/config.json'), '{"debug": false}'); // an editor
    fs.renameSync(path.join(root, 'data/input.csv'), path.join(root, 'data/input-renamed.csv')); // mv
    fs.copyFileSync(path.join(root, 'README.txt'), path.join(root, 'data/output.csv')); // cp over
    fs.mkdirSync(path.join(root, 'fresh/empty'), { recursive: true });
    fs.rmSync(path.join(root, 'empty'), { recursive: true });
    // The archive stores folder entries, so the new folders are entries too; the moved file is a rename.
    const expected = {
      modified: ['data/config.json', 'data/output.csv'],
      added: ['fresh/', 'fresh/empty/'],
      deleted: ['empty/'],
      renamed: [{ from: 'data/input.csv', to: 'data/input-renamed.csv' }],
      unchanged_count: 5, // README.txt, data/, data/archive/, data/archive/2024.csv, logo.png
    };
    expect(status()).toStrictEqual(expected);
    // The same answer where the scan uses node:fs instead of statx (macOS, Windows, no loadable libc).
    expect(box.run(['status', '--json'], { env: { ZIPFS_NATIVE: '0' } }).json).toStrictEqual(expected);
  });

  it('proves untouched files by the ctime fence set at open, and sees every change made after it', () => {
    const fence = readSessionRecord(path.join(box.home, 'workspaces', 'reports', 'manifest.jsonl'))!.ctime_fence_ms!;
    expect(typeof fence).toBe('number');
    for (const file of ['README.txt', 'data/input.csv'])
      expect(fs.statSync(path.join(root, file)).ctimeMs).toBeLessThan(fence);
    // A rewrite with the same bytes' length, its mtime set back, at once after open: the ctime is past the fence.
    const file = path.join(root, 'README.txt');
    const before = fs.statSync(file);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').toUpperCase());
    fs.utimesSync(file, before.atime, before.mtime);
    expect(fs.statSync(file).ctimeMs).toBeGreaterThanOrEqual(fence);
    expect(status().modified).toStrictEqual(['README.txt']);
  });

  it('finds an edit that keeps size and mtime, and ignores a touch', () => {
    const file = path.join(root, 'data/input.csv');
    const before = fs.statSync(file);
    fs.writeFileSync(file, REPORT_FILES['data/input.csv'].replace('10', '99'));
    fs.utimesSync(file, before.atime, before.mtime);
    expect(fs.statSync(file).size).toBe(before.size);
    expect(status().modified).toStrictEqual(['data/input.csv']);
    fs.writeFileSync(file, REPORT_FILES['data/input.csv']);
    fs.utimesSync(file, new Date(), new Date());
    expect(status().modified).toStrictEqual([]);
  });

  it('prints git-style short status and --exit-code 1 when there are changes', () => {
    expect(box.run(['status', '--exit-code']).code).toBe(0);
    box.run(['write', 'README.txt', 'changed']);
    box.run(['delete', 'logo.png']);
    box.run(['write', 'added.txt', 'new']);
    const result = box.run(['status', '--exit-code']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('M README.txt\nA added.txt\nD logo.png\n');
  });
});

describe('zipfs sync', () => {
  it.skipIf(withUnzip.skip)(
    `writes changes back, keeps a backup of the previous archive, and is then clean${withUnzip.why}`,
    () => {
      const original = fs.readFileSync(zip);
      box.run(['write', 'data/config.json', '{"debug": false}\n']);
      box.run(['write', 'notes/new.txt', 'new file\n']);
      box.run(['delete', 'README.txt']);
      const result = box.run(['sync', '--json']).json;
      // notes/ gets a folder entry of its own: this archive stores them (empty/, data/).
      expect(result).toStrictEqual({
        synced: true,
        backup_path: path.join(box.dir, 'reports.zip.bak'),
        files_modified: 1,
        files_added: 2,
        files_deleted: 1,
      });
      expect(fs.readFileSync(result.backup_path).equals(original)).toBe(true);
      expect(status()).toStrictEqual({ modified: [], added: [], deleted: [], unchanged_count: 10 });
      const listing = Bun.spawnSync(['unzip', '-Z1', zip]).stdout.toString().trim().split('\n');
      expect(listing).not.toContain('README.txt');
      expect(listing.slice(-2)).toStrictEqual(['notes/', 'notes/new.txt']);
      expect(Bun.spawnSync(['unzip', '-p', zip, 'data/config.json']).stdout.toString()).toBe('{"debug": false}\n');
    },
  );

  it('does nothing when nothing changed, and a second sync is a no-op', () => {
    const stats = fs.statSync(zip);
    expect(box.run(['sync', '--json']).json).toStrictEqual({
      synced: true,
      backup_path: null,
      files_modified: 0,
      files_added: 0,
      files_deleted: 0,
    });
    expect(fs.statSync(zip).mtimeMs).toBe(stats.mtimeMs);
    box.run(['write', 'README.txt', 'x']);
    box.run(['sync']);
    const after = fs.statSync(zip);
    expect(box.run(['sync', '--json']).json.backup_path).toBeNull();
    expect(fs.statSync(zip).mtimeMs).toBe(after.mtimeMs);
  });

  it('reports the same counts with --dry-run and writes nothing', () => {
    const original = fs.readFileSync(zip);
    box.run(['write', 'README.txt', 'x']);
    box.run(['write', 'b.txt', 'x']);
    expect(box.run(['sync', '--dry-run', '--json']).json).toStrictEqual({
      synced: false,
      backup_path: null,
      files_modified: 1,
      files_added: 1,
      files_deleted: 0,
    });
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(fs.existsSync(path.join(box.dir, 'reports.zip.bak'))).toBe(false);
    expect(box.run(['sync', '--dry-run']).stdout).toContain('dry run');
  });

  it.skipIf(withZipUnzip.skip)(
    `refuses with CONFLICT_DETECTED when the zip changed since open, and overwrites with --force${withZipUnzip.why}`,
    () => {
      box.run(['write', 'README.txt', 'mine']);
      // another tool adds an entry
      const theirs = Bun.spawnSync(['zip', '-q', zip, '-'], { stdin: Buffer.from('theirs') });
      expect(theirs.exitCode).toBe(0);
      const changed = fs.readFileSync(zip);
      const conflict = box.run(['sync', '--json']);
      expect(conflict.code).toBe(ERROR_CODES.CONFLICT_DETECTED.exit);
      expect(conflict.json.error.message).toContain('force');
      expect(fs.readFileSync(zip).equals(changed)).toBe(true);
      const forced = box.run(['sync', '--force', '--json']).json;
      expect(forced.synced).toBe(true);
      expect(Bun.spawnSync(['unzip', '-p', zip, 'README.txt']).stdout.toString()).toBe('mine');
      expect(Bun.spawnSync(['unzip', '-Z1', zip]).stdout.toString()).not.toContain('-\n');
      expect(Bun.spawnSync(['unzip', '-tq', zip]).exitCode).toBe(0);
    },
  );

  it('accepts a zip that was only touched or copied back unchanged', () => {
    fs.utimesSync(zip, new Date(), new Date('2030-01-01'));
    box.run(['write', 'README.txt', 'x']);
    expect(box.run(['sync', '--json']).json.synced).toBe(true);
  });

  it.skipIf(withPython.skip)(
    `says ZIP_NOT_FOUND when the zip is gone, and re-creates it with --force${withPython.why}`,
    () => {
      fs.renameSync(zip, path.join(box.dir, 'moved.zip'));
      const missing = box.run(['sync', '--json']);
      expect(missing.json.error.code).toBe('ZIP_NOT_FOUND');
      expect(fs.existsSync(zip)).toBe(false);
      expect(box.run(['sync', '--force', '--json']).json).toMatchObject({ synced: true, backup_path: null });
      const py = Bun.spawnSync([
        'python3',
        '-c',
        'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); print(z.testzip()); print(len(z.namelist()))',
        zip,
      ]);
      expect(py.stdout.toString().trim().split('\n')).toStrictEqual(['None', '9']);
    },
  );

  it.skipIf(withPython.skip)(`leaves a valid empty zip when every file is deleted${withPython.why}`, () => {
    for (const name of ['README.txt', 'logo.png', 'data', 'empty']) box.run(['delete', name, '-r']);
    expect(box.run(['sync', '--json']).json.files_deleted).toBe(9);
    expect(fs.statSync(zip).size).toBe(22);
    expect(
      Bun.spawnSync(['python3', '-c', 'import sys,zipfile; print(len(zipfile.ZipFile(sys.argv[1]).namelist()))', zip])
        .stdout.toString()
        .trim(),
    ).toBe('0');
    expect(status()).toStrictEqual({ modified: [], added: [], deleted: [], unchanged_count: 0 });
  });

  it("keeps the archive's permission bits and removes temporaries of dead syncs", () => {
    fs.chmodSync(zip, 0o640);
    const leftover = path.join(box.dir, '.reports.zip.zipfs-999999-dead.tmp');
    fs.writeFileSync(leftover, 'partial');
    box.run(['write', 'README.txt', 'x']);
    box.run(['sync']);
    expect(fs.statSync(zip).mode & 0o777).toBe(0o640);
    expect(fs.existsSync(leftover)).toBe(false);
  });
});

describe('zipfs close with changes', () => {
  it('refuses to drop unsynced changes, and discards them with --force', () => {
    box.run(['write', 'README.txt', 'x']);
    const refused = box.run(['close', '--json']);
    expect(refused.code).toBe(ERROR_CODES.UNSYNCED_CHANGES.exit);
    expect(refused.json.error.message).toMatch(/sync.*force/);
    expect(fs.existsSync(root)).toBe(true);
    expect(box.run(['close', '--force', '--json']).json).toStrictEqual({
      closed: true,
      synced: false,
      name: 'reports',
    });
    expect(fs.existsSync(root)).toBe(false);
  });

  it.skipIf(withUnzip.skip)(
    `syncs and then closes with --sync, and keeps the session when the sync fails${withUnzip.why}`,
    () => {
      box.run(['write', 'README.txt', 'synced on close']);
      fs.utimesSync(zip, new Date(), new Date('2030-01-01'));
      fs.appendFileSync(zip, Buffer.from('x')); // the zip changed meanwhile: the sync must refuse
      expect(box.run(['close', '--sync', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
      expect(fs.existsSync(root)).toBe(true);
      expect(box.run(['close', '--sync', '--force', '--json']).json).toMatchObject({
        closed: true,
        synced: true,
        name: 'reports',
        sync: { files_modified: 1 },
      });
      expect(Bun.spawnSync(['unzip', '-p', zip, 'README.txt']).stdout.toString()).toBe('synced on close');
    },
  );
});
