/**
 * zipfs on a case-insensitive folder, as macOS (APFS) and Windows (NTFS) give
 * by default: here the data folder (ZIPFS_HOME) and the zips sit on
 * casefold-fs (tests/helpers/casefold-mount.ts), which gives a Linux folder
 * those rules. On such a folder `README.txt` and `readme.txt` are one file,
 * so a case-only rename must not be taken for a move onto another file, an
 * archive naming two entries that fold to one path cannot be laid out, and a
 * name written in another case is the entry already there.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { runZipfs, sandbox, type RunResult } from '../helpers/cli.ts';
import { casefoldAvailable, mountCasefold, type CasefoldMount } from '../helpers/casefold-mount.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { pythonRead } from '../helpers/zip-compare.ts';
import { needs } from '../helpers/tools.ts';

const available = casefoldAvailable();
const python = needs('python3');
const skip = available.skip || python.skip;
let mount: CasefoldMount | undefined;
beforeAll(async () => {
  if (!skip) mount = await mountCasefold();
});
afterAll(() => mount?.unmount());

/** A fresh folder on the mount per test, holding the zips and the data folder. */
let dir: string;
beforeEach(() => {
  if (mount) dir = fs.mkdtempSync(path.join(mount.path, 't-'));
});
const home = () => path.join(dir, 'home');
const zipfs = (args: string[]): RunResult => runZipfs(args, { env: { ZIPFS_HOME: home() } });
const writeArchive = (name: string, entries: RawEntry[]) => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, rawZip(entries));
  return file;
};
/** Opens `entries` as session "work" and returns its workspace folder. */
const openWork = (entries: RawEntry[]): string => {
  const opened = zipfs(['open', writeArchive('work.zip', entries), '--json']);
  expect(opened.json?.error).toBeUndefined();
  return opened.json.workspace_path;
};
const listed = (folder: string) => fs.readdirSync(folder).sort();
const sessionRecord = (homeDir: string, name: string) =>
  JSON.parse(fs.readFileSync(path.join(homeDir, 'workspaces', name, 'manifest.jsonl'), 'utf8').split('\n')[0]!);
/** Every folder in workspaces/, hidden ones (open's staging) included. */
const workspaceFolders = () =>
  fs.existsSync(path.join(home(), 'workspaces')) ? fs.readdirSync(path.join(home(), 'workspaces')) : [];

const why = available.skip ? available.why : python.why;

describe.skipIf(skip)(`case-insensitive workspace (issue 20)${why}`, () => {
  describe('mv to another case of the same name', () => {
    it('renames a folder with --overwrite and keeps every file in it', () => {
      const root = openWork([
        { name: 'docs/a.txt', data: 'a' },
        { name: 'docs/b.txt', data: 'b' },
      ]);
      const moved = zipfs(['mv', 'docs', 'Docs', '--overwrite', '--json']);
      // The files first: "Docs" is "docs" itself, and removing the target to make room removes the source.
      expect(listed(root)).toStrictEqual(['Docs']);
      expect(listed(path.join(root, 'Docs'))).toStrictEqual(['a.txt', 'b.txt']);
      expect(fs.readFileSync(path.join(root, 'Docs/b.txt'), 'utf8')).toBe('b');
      expect(moved.json).toStrictEqual({ moved: true, from: 'docs', to: 'Docs' });
    });

    it('renames a file without --overwrite (it is not "already there": it is the file itself)', () => {
      const root = openWork([{ name: 'a.txt', data: 'a' }]);
      const moved = zipfs(['mv', 'a.txt', 'A.txt', '--json']);
      expect(moved.json).toStrictEqual({ moved: true, from: 'a.txt', to: 'A.txt' });
      expect(listed(root)).toStrictEqual(['A.txt']);
      expect(fs.readFileSync(path.join(root, 'A.txt'), 'utf8')).toBe('a');
    });

    it('renames a file with --overwrite when the target is the source itself', () => {
      const root = openWork([{ name: 'a.txt', data: 'a' }]);
      const moved = zipfs(['mv', 'a.txt', 'A.TXT', '--overwrite', '--json']);
      expect(moved.json).toStrictEqual({ moved: true, from: 'a.txt', to: 'A.TXT' });
      expect(listed(root)).toStrictEqual(['A.TXT']);
      expect(fs.readFileSync(path.join(root, 'A.TXT'), 'utf8')).toBe('a');
    });

    it('renames a folder without --overwrite, and sync writes the new names', () => {
      const root = openWork([{ name: 'docs/a.txt', data: 'a' }]);
      expect(zipfs(['mv', 'docs', 'Docs', '--json']).json).toStrictEqual({ moved: true, from: 'docs', to: 'Docs' });
      expect(listed(root)).toStrictEqual(['Docs']);
      expect(zipfs(['sync', '--json']).json).toMatchObject({ synced: true });
      expect(pythonRead(path.join(dir, 'work.zip')).names).toStrictEqual(['Docs/a.txt']);
    });
  });

  describe('an archive whose names differ only in case', () => {
    it(
      'opens folders "Docs" and "docs" as one folder, is clean right after open, and sync keeps both names ' +
        'exactly',
      () => {
        const root = openWork([
          { name: 'Docs/a.txt', data: 'a' },
          { name: 'docs/b.txt', data: 'b' },
        ]);
        expect(listed(path.join(root, 'docs'))).toStrictEqual(['a.txt', 'b.txt']);
        expect(zipfs(['status', '--json']).json).toStrictEqual({
          modified: [],
          added: [],
          deleted: [],
          unchanged_count: 2,
        });
        expect(zipfs(['write', 'other.txt', 'other']).code).toBe(0);
        expect(zipfs(['sync', '--json']).json).toMatchObject({
          synced: true,
          files_modified: 0,
          files_added: 1,
          files_deleted: 0,
        });
        const synced = pythonRead(path.join(dir, 'work.zip'));
        expect(synced.names.sort()).toStrictEqual(['Docs/a.txt', 'docs/b.txt', 'other.txt']);
        expect(synced.contents['docs/b.txt']).toBe(Buffer.from('b').toString('hex'));
      },
    );

    it.each([
      [
        'two files',
        [
          { name: 'Readme.txt', data: '1' },
          { name: 'README.txt', data: '2' },
        ],
        ['Readme.txt', 'README.txt'],
      ],
      [
        'a file and a folder',
        [
          { name: 'a', data: 'file' },
          { name: 'A/x', data: 'x' },
        ],
        ['a', 'A/x'],
      ],
    ] as [string, RawEntry[], string[]][])(
      'refuses %s at one path with ZIP_INVALID naming both entries, leaving no session',
      (_what, entries, names) => {
        const opened = zipfs(['open', writeArchive('clash.zip', entries), '--json']);
        expect(opened.json?.error?.code).toBe('ZIP_INVALID');
        expect(opened.code).toBe(ERROR_CODES.ZIP_INVALID.exit);
        for (const name of names) expect(opened.json.error.message).toContain(name);
        expect(workspaceFolders()).toStrictEqual([]);
        expect(zipfs(['sessions', '--json']).json).toMatchObject({ sessions: [] });
      },
    );
  });

  describe('a name written in another case', () => {
    it('is the entry already there: written through the folder, status shows it modified under its own name', () => {
      const root = openWork([{ name: 'README.txt', data: 'old' }]);
      fs.writeFileSync(path.join(root, 'readme.TXT'), 'new');
      expect(zipfs(['status', '--json']).json).toStrictEqual({
        modified: ['README.txt'],
        added: [],
        deleted: [],
        unchanged_count: 0,
      });
      expect(zipfs(['sync', '--json']).json).toMatchObject({ synced: true, files_modified: 1, files_added: 0 });
      const synced = pythonRead(path.join(dir, 'work.zip'));
      expect(synced.names).toStrictEqual(['README.txt']);
      expect(synced.contents['README.txt']).toBe(Buffer.from('new').toString('hex'));
    });

    it('is the entry already there: written with zipfs write, status shows it modified under its own name', () => {
      const root = openWork([{ name: 'README.txt', data: 'old' }]);
      expect(zipfs(['write', 'readme.TXT', 'new']).code).toBe(0);
      expect(listed(root)).toStrictEqual(['README.txt']);
      expect(zipfs(['status', '--json']).json).toStrictEqual({
        modified: ['README.txt'],
        added: [],
        deleted: [],
        unchanged_count: 0,
      });
      expect(zipfs(['sync', '--json']).json).toMatchObject({ synced: true });
      expect(pythonRead(path.join(dir, 'work.zip')).names).toStrictEqual(['README.txt']);
    });
  });

  describe('the session', () => {
    it('records that its workspace is case-insensitive', () => {
      openWork([{ name: 'a.txt', data: 'a' }]);
      expect(sessionRecord(home(), 'work').case_insensitive).toBe(true);
    });

    it('records case_insensitive: false on an ordinary Linux folder', () => {
      const box = sandbox();
      try {
        const zip = path.join(box.dir, 'plain.zip');
        fs.writeFileSync(zip, rawZip([{ name: 'a.txt', data: 'a' }]));
        expect(box.run(['open', zip, '--json']).code).toBe(0);
        expect(sessionRecord(box.home, 'plain').case_insensitive).toBe(false);
      } finally {
        box.cleanup();
      }
    });

    it('answers "already open" when the same zip is opened through a path that differs only in case', () => {
      const zip = writeArchive('a.zip', [{ name: 'x.txt', data: 'x' }]);
      const first = zipfs(['open', zip, '--json']);
      expect(first.code).toBe(0);
      const again = zipfs(['open', path.join(dir, 'A.zip'), '--json']);
      expect(again.json).toStrictEqual({ ...first.json, already_open: true });
      expect(zipfs(['sessions', '--json']).json.sessions).toHaveLength(1);
    });
  });

  describe('a lazy session (issue 23, point 6)', () => {
    it(
      'opens an archive whose names collide by case, reads ' + 'both, refuses to extract either, and syncs both raw',
      () => {
        const zip = writeArchive('collide.zip', [
          { name: 'README.txt', data: 'upper\n' },
          { name: 'readme.txt', data: 'lower\n' },
          { name: 'src/main.c', data: 'int main;\n' },
        ]);
        // eager: the folder cannot hold both
        expect(zipfs(['open', zip, '--json']).json.error.code).toBe('ZIP_INVALID');
        const root = zipfs(['open', zip, '--lazy', '--json']).json.workspace_path;
        expect(zipfs(['read', 'README.txt']).stdout).toBe('upper\n');
        expect(zipfs(['read', 'readme.txt']).stdout).toBe('lower\n');
        const refused = zipfs(['extract', 'readme.txt', '--json']).json.error;
        expect(refused.code).toBe('ZIP_INVALID');
        expect(refused.message).toContain('"readme.txt" cannot be extracted here');
        expect(zipfs(['extract', 'src', '--json']).json.extracted).toBe(1);
        fs.writeFileSync(path.join(root, 'src', 'main.c'), 'int main() { return 0; }\n');
        expect(zipfs(['sync', '--json']).json.files_modified).toBe(1);
        const read = pythonRead(zip).contents;
        expect(Buffer.from(read['README.txt']!, 'hex').toString()).toBe('upper\n');
        expect(Buffer.from(read['readme.txt']!, 'hex').toString()).toBe('lower\n');
        expect(listed(root)).toEqual(['src']);
      },
    );
  });
});
