/**
 * Archives whose fields lie about where entries are. Fuzzing found that
 * folder entries were never range-checked: such archives opened, and sync
 * copied byte ranges computed from the lies, reported success, and left a zip
 * nobody could read. Open now checks every entry's range; sync reads back what
 * it wrote before the rename.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { patchCentral, rawZip } from '../helpers/raw-zip.ts';
import { REFERENCE_WHY, expectReferenceClean, pythonRead, sha } from '../helpers/zip-compare.ts';
import { needs } from '../helpers/tools.ts';

const python = needs('python3');

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

/** A folder entry between two files, so its range has neighbours on both sides. */
const base = () =>
  rawZip([
    { name: 'a.txt', data: 'first file\n'.repeat(20) },
    { name: 'dir/', data: '', method: 0 },
    { name: 'dir/b.txt', data: 'second file\n'.repeat(20) },
  ]);

const sizeOf = (bytes: Uint8Array) => bytes.length;
/** Where the central directory starts in an archive rawZip wrote (no comment, no zip64). */
const centralStart = (bytes: Uint8Array) => Buffer.from(bytes).readUInt32LE(bytes.length - 6);

/** Nothing of a refused open may remain: no session, no staging folder. */
function expectNothingLeft(): void {
  const workspaces = path.join(box.home, 'workspaces');
  expect(fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []).toStrictEqual([]);
}

describe('open checks the byte range of every entry, folders included', () => {
  it.each([
    [
      'a local-header offset past the end of the file',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'localHeaderOffset', sizeOf(b) + 100),
      'ZIP_INVALID',
      /outside the entries' area/,
    ],
    [
      'a local-header offset inside the central directory',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'localHeaderOffset', centralStart(b) + 4),
      'ZIP_INVALID',
      /outside the entries' area/,
    ],
    [
      'a local-header offset inside another entry',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'localHeaderOffset', 3),
      'ZIP_BOMB_DETECTED',
      /overlapping entries/,
    ],
    [
      'a compressed size that runs into the next entry',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'compressedSize', 60),
      'ZIP_BOMB_DETECTED',
      /overlapping entries/,
    ],
    [
      '0xFFFFFFFF as compressed size',
      (b: Uint8Array) => patchCentral(b, 'dir/', 'compressedSize', 0xffffffff),
      'ZIP_INVALID',
      /zip64/,
    ],
  ])('refuses a folder entry with %s, leaving nothing', (_what, damage, code, message) => {
    const zip = writeZip(box.dir, 'bad.zip', damage(base()));
    const result = box.run(['open', zip, '--json']);
    expect(result.json.error.code).toBe(code);
    expect(result.json.error.message).toMatch(message);
    expect(result.code).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES].exit);
    expectNothingLeft();
  });

  it('refuses the last entry when its data runs into the central directory', () => {
    const bytes = rawZip([
      { name: 'a.txt', data: 'x'.repeat(100) },
      { name: 'z/', data: '', method: 0 },
    ]);
    const result = box.run([
      'open',
      writeZip(box.dir, 'bad.zip', patchCentral(bytes, 'z/', 'compressedSize', 10)),
      '--json',
    ]);
    expect(result.json.error.code).toBe('ZIP_INVALID');
    expect(result.json.error.message).toContain('into the central directory');
    expect(result.json.error.message).toContain('zip -FF');
  });
});

describe('sync reads back the archive it wrote before replacing the zip', () => {
  it('refuses to write over the zip when a range it copies is damaged, and leaves everything as it was', () => {
    const good = base();
    const zip = writeZip(box.dir, 'reports.zip', good);
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'new.txt'), 'an edit to sync');
    // The folder entry's local header is damaged behind the session's back (its extra-field length
    // now runs into the next entry). The central directory, and so the zip's fingerprint, is the
    // same: sync copies the entry's bytes verbatim, as it copies every unchanged entry.
    const damaged = Buffer.from(good);
    const folder = damaged.indexOf('dir/') - 30;
    damaged.writeUInt16LE(200, folder + 28);
    fs.writeFileSync(zip, damaged);
    const before = sha(zip);

    const result = box.run(['sync', '--json']);
    expect(result.json?.error?.code).toBe('SYNC_FAILED');
    expect(result.json.error.message).toMatch(
      new RegExp(
        /failed its check before replacing the zip \(Entry "dir\/" has data running \d+ bytes /.source +
          /into Entry "dir\/b.txt"\).*left unchanged/.source,
      ),
    );
    expect(sha(zip)).toBe(before);
    expect(fs.readdirSync(box.dir).sort()).toStrictEqual(['home', 'reports.zip']); // no temporary, no backup
    expect(box.run(['status', '--json']).json.added).toStrictEqual(['new.txt']); // the edit is still there to sync
  });

  it('reads back every copied header when the zip was written since its base, not only the ends of each run', () => {
    // Forty entries copied as one run: a sync whose zip was not written since reads back only the run's ends. This zip
    // was written (its mtime moved), so the damaged header in the middle of the run is read, and refused.
    const entries = Array.from({ length: 40 }, (_, i) => ({
      name: `f${String(i).padStart(2, '0')}.txt`,
      data: `${i}\n`,
    }));
    const good = rawZip(entries);
    const zip = writeZip(box.dir, 'reports.zip', good);
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'new.txt'), 'an edit to sync');
    const damaged = Buffer.from(good);
    damaged.writeUInt16LE(200, damaged.indexOf('f20.txt') - 30 + 28); // runs into f21.txt
    fs.writeFileSync(zip, damaged);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(zip, later, later);
    const result = box.run(['sync', '--json']);
    expect(result.json?.error?.code).toBe('SYNC_FAILED');
    expect(result.json.error.message).toContain('Entry "f20.txt" has data running');
    expect(box.run(['status', '--json']).json.added).toStrictEqual(['new.txt']);
  });

  it(
    `writes a fresh folder entry when the zip changed under a forced sync, instead of copying a ` +
      `lie${REFERENCE_WHY}`,
    () => {
      const good = base();
      const zip = writeZip(box.dir, 'reports.zip', good);
      box.run(['open', zip]);
      box.run(['write', 'new.txt', 'x']);
      fs.writeFileSync(zip, patchCentral(good, 'dir/', 'compressedSize', 60));
      expect(box.run(['sync', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
      expect(box.run(['sync', '--force', '--json']).json.synced).toBe(true);
      expectReferenceClean(zip);
      expect(box.run(['open', zip, '--name', 'again', '--json']).json.file_count).toBe(3);
    },
  );
});

describe('archives with a "./" root entry (bsdtar -a -cf out.zip .)', () => {
  const bsdtarLike = () =>
    rawZip([
      { name: './', data: '', method: 0, unixMode: 0o040755 },
      { name: './a.txt', data: 'alpha\n', unixMode: 0o100644 },
      { name: './sub/', data: '', method: 0, unixMode: 0o040755 },
      { name: './sub/b.txt', data: 'beta\n', unixMode: 0o100644 },
    ]);

  it.skipIf(python.skip)(
    `opens them, keeps the root entry, and copies it back untouched on sync${python.why}${REFERENCE_WHY}`,
    () => {
      const zip = writeZip(box.dir, 'tree.zip', bsdtarLike());
      const opened = box.run(['open', zip, '--json']).json;
      expect(opened.file_count).toBe(2);
      expect(fs.readFileSync(path.join(opened.workspace_path, 'sub/b.txt'), 'utf8')).toBe('beta\n');
      expect(box.run(['status', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 4,
      });
      box.run(['write', 'sub/c.txt', 'gamma']);
      expect(box.run(['sync', '--json']).json.synced).toBe(true);
      expect(pythonRead(zip).names).toStrictEqual(['./', './a.txt', './sub/', './sub/b.txt', 'sub/c.txt']);
      expectReferenceClean(zip);
      expect(box.run(['status', '--json']).json.unchanged_count).toBe(5);
    },
  );

  it.skipIf(needs('bsdtar').skip)(
    `opens what bsdtar itself writes, and syncs it back${needs('bsdtar').why}${REFERENCE_WHY}`,
    () => {
      const tree = path.join(box.dir, 'tree');
      fs.mkdirSync(path.join(tree, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(tree, 'a.txt'), 'alpha\n');
      fs.writeFileSync(path.join(tree, 'sub', 'b.txt'), 'beta\n');
      const zip = path.join(box.dir, 'out.zip');
      expect(Bun.spawnSync(['bsdtar', '-a', '-cf', zip, '.'], { cwd: tree }).exitCode).toBe(0);
      const opened = box.run(['open', zip, '--json']).json;
      expect(opened.file_count).toBe(2);
      box.run(['write', 'a.txt', 'changed\n']);
      expect(box.run(['sync', '--json']).json.files_modified).toBe(1);
      expect(Bun.spawnSync(['bsdtar', '-tf', zip]).stdout.toString().split('\n')).toContain('./');
      expectReferenceClean(zip);
    },
  );
});

describe('entry names the file system cannot hold', () => {
  it.each([
    ['a folder part', `${'d'.repeat(300)}/file.txt`],
    ['a file name', `dir/${'f'.repeat(300)}.txt`],
  ])('refuses %s over 255 bytes as ZIP_INVALID (exit 7), leaving nothing', (_what, name) => {
    const result = box.run([
      'open',
      writeZip(
        box.dir,
        'long.zip',
        rawZip([
          { name: 'ok.txt', data: 'ok' },
          { name, data: 'x' },
        ]),
      ),
      '--json',
    ]);
    expect(result.code).toBe(ERROR_CODES.ZIP_INVALID.exit);
    expect(result.json.error.message).toMatch(/(name part of 30\d bytes|cannot be created)/);
    expectNothingLeft();
  });
});
