/**
 * What sync refuses to write, so that it never reports success over an
 * archive that zipfs itself (or a Windows extractor) would refuse or read as
 * something else: entry names open refuses, archives over open's limits, and
 * a backup it cannot put in place. Each refusal writes nothing and leaves no
 * temporary beside the zip.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { quoted } from '../../src/format/quote-name.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
let original: Buffer;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'names.zip', rawZip([{ name: 'd/b.txt', data: 'b' }]));
  original = fs.readFileSync(zip);
  root = box.run(['open', zip, '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

/** The zip is as it was, and nothing of a sync is left beside it. */
function expectUntouched(): void {
  expect(fs.readFileSync(zip).equals(original)).toBe(true);
  expect(fs.readdirSync(box.dir).sort()).toStrictEqual(['home', 'names.zip']);
}

describe('names sync would write', () => {
  for (const name of ['..\\..\\x.txt', 'C:notes.txt', 'd\\b.txt', 'sub\\..\\..\\y.txt', 'Z:']) {
    it(
      `refuses ${JSON.stringify(name)}, which open would refuse or read as another path, naming it in status and ` +
        `sync`,
      () => {
        fs.writeFileSync(path.join(root, name), 'x');
        const status = box.run(['status', '--json']).json;
        expect(status.unsupported.map((u: { path: string }) => u.path)).toStrictEqual([name]);
        expect(status.unsupported[0].reason).toContain('rename it');
        const sync = box.run(['sync', '--json']).json;
        expect(sync.error.code).toBe('SYNC_FAILED');
        expect(sync.error.message).toContain(quoted(name)); // quoted as a terminal shows it: `\` doubled
        expectUntouched();
        // Renamed (by the shell: zipfs paths read \ as /), it syncs, and the zip opens again.
        fs.renameSync(path.join(root, name), path.join(root, 'renamed.txt'));
        expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_added: 1 });
        expect(box.run(['open', zip, '--name', 'again', '--json']).code).toBe(0);
      },
    );
  }

  it('refuses a folder whose name has a backslash, and what is in it', () => {
    fs.mkdirSync(path.join(root, 'a\\b'));
    fs.writeFileSync(path.join(root, 'a\\b', 'c.txt'), 'c');
    expect(box.run(['sync', '--json']).json.error.code).toBe('SYNC_FAILED');
    expectUntouched();
  });

  it('refuses a path too deep for a workspace to hold on this system, which open would refuse too', () => {
    // 20 folders of 200 bytes, made a step at a time (bash: dash's cd stops at the path limit).
    const made = Bun.spawnSync([
      'bash',
      '-c',
      `cd "$1" && for i in $(seq 20); do mkdir ${'e'.repeat(200)} && cd ${'e'.repeat(200)}; done && echo deep > f.txt`,
      'bash',
      root,
    ]);
    expect(made.exitCode).toBe(0);
    const status = box.run(['status', '--json']);
    expect(status.code).toBe(0);
    expect(status.json.unsupported[0].reason).toContain('move it to a shallower folder');
    expect(box.run(['sync', '--json']).json.error.code).toBe('SYNC_FAILED');
    expectUntouched();
  });
});

describe("archives over open's limits", () => {
  it(
    'refuses, before writing, a sync whose zip would have more entries than open takes; with the limit raised it ' +
      'syncs',
    () => {
      for (let i = 0; i < 5; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), 'x');
      const refused = box.run(['sync', '--json'], { env: { ZIPFS_MAX_ENTRIES: '4' } }).json;
      expect(refused.error.code).toBe('ZIP_BOMB_DETECTED');
      expect(refused.error.message).toContain('ZIPFS_MAX_ENTRIES');
      expectUntouched();
      expect(box.run(['sync', '--json'], { env: { ZIPFS_MAX_ENTRIES: '10' } }).json.synced).toBe(true);
    },
  );

  it('refuses a modified file that compresses past the ratio open calls a bomb, though no name is new', () => {
    // No name is added or renamed: the names need no second look (reopen-check.ts), the sizes still do.
    fs.writeFileSync(path.join(root, 'd', 'b.txt'), Buffer.alloc(200_000));
    const limits = { ZIPFS_RATIO_FLOOR_BYTES: '1000', ZIPFS_MAX_ENTRY_RATIO: '50' };
    const refused = box.run(['sync', '--json'], { env: limits }).json;
    expect(refused.error.code).toBe('ZIP_BOMB_DETECTED');
    expect(refused.error.message).toContain('d/b.txt');
    expect(refused.error.message).toContain('ZIPFS_MAX_ENTRY_RATIO');
    expectUntouched();
  });

  it(
    'refuses a file that compresses past the ratio open calls a bomb, leaving no temporary; with the limit raised, ' +
      'both sync and open take it',
    () => {
      const zeros = path.join(root, 'zeros.bin');
      fs.writeFileSync(zeros, '');
      fs.truncateSync(zeros, 40 << 20); // sparse: 40 MiB of zeros, about 1000:1
      const refused = box.run(['sync', '--json']).json;
      expect(refused.error.code).toBe('ZIP_BOMB_DETECTED');
      expect(refused.error.message).toContain('zeros.bin');
      expect(refused.error.message).toContain('ZIPFS_MAX_ENTRY_RATIO');
      expectUntouched();
      const trusted = { ZIPFS_MAX_ENTRY_RATIO: '5000', ZIPFS_MAX_RATIO: '5000' };
      expect(box.run(['sync', '--json'], { env: trusted }).json.synced).toBe(true);
      expect(box.run(['open', zip, '--name', 'plain', '--json']).json.error.code).toBe('ZIP_BOMB_DETECTED');
      expect(box.run(['open', zip, '--name', 'trusted', '--json'], { env: trusted }).code).toBe(0);
    },
  );
});

describe('the backup', () => {
  it(
    'refuses, before writing, when a folder sits where the backup goes, and leaves no temporary; --no-backup ' +
      'syncs',
    () => {
      fs.mkdirSync(`${zip}.bak`);
      fs.writeFileSync(path.join(`${zip}.bak`, 'mine.txt'), 'mine');
      fs.writeFileSync(path.join(root, 'new.txt'), 'new');
      const refused = box.run(['sync', '--json']).json;
      expect(refused.error.code).toBe('SYNC_FAILED');
      expect(refused.error.message).toContain('--no-backup');
      expect(fs.readFileSync(zip).equals(original)).toBe(true);
      expect(fs.readdirSync(box.dir).sort()).toStrictEqual(['home', 'names.zip', 'names.zip.bak']);
      expect(fs.readFileSync(path.join(`${zip}.bak`, 'mine.txt'), 'utf8')).toBe('mine');
      expect(box.run(['sync', '--no-backup', '--json']).json).toMatchObject({ synced: true, backup_path: null });
    },
  );
});
