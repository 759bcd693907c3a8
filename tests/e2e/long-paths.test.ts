/**
 * Paths the file system cannot reach (issue 28, item 8): a data folder of
 * about 4,000 characters, a zip whose name leaves no room for the sync's lock
 * and temporary beside it, a loop of links on the way. Each was an
 * "Unexpected failure" (exit 70) from whichever call met ENAMETOOLONG or
 * ELOOP first (the case probe, the lock, the temporary); each is
 * INVALID_INPUT now, naming the path and the way out, with nothing left
 * behind and the zip as it was.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { runZipfs, sandbox, writeZip } from '../helpers/cli.ts';
import { sha } from '../helpers/zip-compare.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** A folder under the sandbox whose path is `length` characters long. */
function folderOfLength(length: number): string {
  let folder = box.dir;
  while (folder.length + 201 < length) folder = path.join(folder, 'd'.repeat(200));
  folder = path.join(folder, 'e'.repeat(length - folder.length - 1));
  fs.mkdirSync(folder, { recursive: true });
  expect(folder.length).toBe(length);
  return folder;
}

function expectUnusablePath(result: ReturnType<typeof runZipfs>, advice: RegExp): void {
  expect({ code: result.code, error: result.json?.error?.code }).toEqual({
    code: ERROR_CODES.INVALID_INPUT.exit,
    error: 'INVALID_INPUT',
  });
  expect(result.json.error.message).toMatch(advice);
  expect(result.json.error.message.length).toBeLessThan(800); // the path abridged, not echoed whole
}

describe('a data folder path the file system cannot reach', () => {
  it.each([[[]], [['--lazy']]])(
    'open %p with a 4,035-character ZIPFS_HOME is INVALID_INPUT saying to shorten it; nothing is left',
    (flags) => {
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const home = folderOfLength(4035);
      const result = runZipfs(['open', zip, ...flags, '--json'], { env: { ZIPFS_HOME: home } });
      expectUnusablePath(result, /too long for the file system .*set ZIPFS_HOME to a shorter folder/);
      expect(fs.readdirSync(path.join(home, 'workspaces'))).toEqual([]);
    },
  );

  it('a loop of links on the way to ZIPFS_HOME is INVALID_INPUT naming the links', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    fs.symlinkSync(path.join(box.dir, 'b'), path.join(box.dir, 'a'));
    fs.symlinkSync(path.join(box.dir, 'a'), path.join(box.dir, 'b'));
    for (const args of [['open', zip], ['sessions']]) {
      expectUnusablePath(
        runZipfs([...args, '--json'], { env: { ZIPFS_HOME: path.join(box.dir, 'a', 'home') } }),
        /too many symbolic links .*fix those links/,
      );
    }
  });
});

describe('a zip whose lock and temporary cannot be named beside it', () => {
  it.each([
    ['a 235-byte name', () => path.join(box.dir, 'zips', `${'n'.repeat(231)}.zip`), /a name in it is over 255 bytes/],
    ['a 4,060-character path', () => path.join(folderOfLength(4054), 'a.zip'), /over the 4,096 bytes/],
  ])(
    'with %s: open and edit work, sync is INVALID_INPUT saying to move the zip; it is as it was, nothing beside it',
    (_what, place, detail) => {
      for (const flags of [[], ['--lazy']]) {
        const where = place();
        fs.mkdirSync(path.dirname(where), { recursive: true });
        const zip = writeZip(path.dirname(where), path.basename(where), reportsZip());
        const before = sha(zip);
        expect(box.run(['open', zip, ...flags, '--json']).code).toBe(0);
        expect(box.run(['write', 'new.txt', 'new\n']).code).toBe(0);
        expectUnusablePath(box.run(['sync', '--json']), new RegExp(`${detail.source}.*move the zip to a shorter path`));
        expect(sha(zip)).toBe(before);
        expect(fs.readdirSync(path.dirname(zip))).toEqual([path.basename(zip)]);
        expect(box.run(['close', '--force']).code).toBe(0);
      }
    },
  );
});

describe('a zip path no file can be at', () => {
  it.each([
    [
      'too long (4,300 characters)',
      () => path.join(folderOfLength(4080), `${'z'.repeat(200)}.zip`),
      /over the 4,096 bytes .*move the zip to a shorter path/,
    ],
    [
      'through a loop of links',
      () => {
        fs.symlinkSync(path.join(box.dir, 'y'), path.join(box.dir, 'x'));
        fs.symlinkSync(path.join(box.dir, 'x'), path.join(box.dir, 'y'));
        return path.join(box.dir, 'x', 'app.zip');
      },
      /too many symbolic links .*fix those links/,
    ],
  ])('%s: open, open --create and inspect are INVALID_INPUT, and no session is made', (_what, place, advice) => {
    const zip = place();
    for (const args of [
      ['open', zip],
      ['open', zip, '--create'],
      ['open', zip, '--lazy'],
      ['inspect', zip],
    ])
      expectUnusablePath(box.run([...args, '--json']), advice);
    expect(box.run(['sessions', '--json']).json.sessions).toEqual([]);
  });
});
