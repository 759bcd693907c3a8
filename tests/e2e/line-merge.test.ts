/**
 * Two sessions of one zip change one text file (issue 31, point 2): `sync --merge` merges their
 * lines as `git merge-file` does. Changes to different lines merge into the workspace and the zip;
 * the same change on both sides is no conflict; changes to the same lines are marked in the
 * workspace file with git's markers, every sync refuses while they remain, and `edit` resolves
 * them. Binary files conflict whole. A merge with nothing of the workspace's own leaves the zip as
 * it was; a dry run names both sides. On the CLI, and over MCP with the SDK's Client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { needs } from '../helpers/tools.ts';

const unzip = needs('unzip');
const LINES = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const TEXT = `${LINES.join('\n')}\n`;
/** The base text with lines (counted from 1) replaced. */
const changed = (lines: Record<number, string>, from = TEXT) => {
  const out = from.split('\n');
  for (const [at, text] of Object.entries(lines)) out[Number(at) - 1] = text;
  return out.join('\n');
};

let box: ReturnType<typeof sandbox>;
let zip: string;
let one: string;
let two: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'site.zip',
    rawZip([
      { name: 'page.txt', data: TEXT, method: 8 },
      { name: 'logo.bin', data: new Uint8Array([0, 1, 2, 3, 0, 5]) },
      { name: 'other.txt', data: 'other\n' },
    ]),
  );
  one = box.run(['open', zip, '--name', 'one', '--json']).json.workspace_path;
  two = box.run(['open', zip, '--name', 'two', '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

const unzipped = (entry: string) => Bun.spawnSync(['unzip', '-p', zip, entry]).stdout.toString();
const page = (root: string) => fs.readFileSync(path.join(root, 'page.txt'), 'utf8');

/** Session one changes page.txt (and syncs it into the zip); two changes it too, unsynced. */
function bothChange(mine: Record<number, string>, theirs: Record<number, string>): void {
  fs.writeFileSync(path.join(one, 'page.txt'), changed(theirs));
  expect(box.run(['sync', 'one', '--json']).json.synced).toBe(true);
  fs.writeFileSync(path.join(two, 'page.txt'), changed(mine));
}

describe('sync --merge of a text file both sides changed', () => {
  it.skipIf(unzip.skip)(`merges changes to different lines into the workspace and the zip${unzip.why}`, () => {
    bothChange({ 2: 'line 2 by two' }, { 10: 'line 10 by one' });
    const dry = box.run(['sync', 'two', '--merge', '--dry-run', '--json']).json;
    expect(dry).toMatchObject({ synced: false, from_zip: ['M page.txt'], merged_by_lines: ['page.txt'] });
    expect(dry.from_workspace).toStrictEqual(['M page.txt']);
    expect(page(two)).toBe(changed({ 2: 'line 2 by two' })); // a dry run writes nothing
    const synced = box.run(['sync', 'two', '--merge', '--json']).json;
    expect(synced).toMatchObject({ synced: true, files_modified: 1, merged_by_lines: ['page.txt'] });
    const both = changed({ 2: 'line 2 by two', 10: 'line 10 by one' });
    expect(unzipped('page.txt')).toBe(both);
    expect(page(two)).toBe(both);
    expect(box.run(['status', 'two', '--json']).json.modified).toStrictEqual([]);
    expect(Bun.spawnSync(['unzip', '-tq', zip]).exitCode).toBe(0);
  });

  it('takes the same change made on both sides once, beside a change of its own', () => {
    bothChange({ 3: 'line 3 fixed', 11: 'line 11 by two' }, { 3: 'line 3 fixed' });
    const synced = box.run(['sync', 'two', '--merge', '--json']);
    expect(synced.json).toMatchObject({ synced: true, merged_by_lines: ['page.txt'] });
    expect(page(two)).toBe(changed({ 3: 'line 3 fixed', 11: 'line 11 by two' }));
  });

  it.skipIf(unzip.skip)(
    `marks changes to the same lines, refuses while marked, and syncs once edited${unzip.why}`,
    () => {
      bothChange({ 6: 'line 6 by two', 12: 'line 12 by two' }, { 6: 'line 6 by one', 1: 'line 1 by one' });
      const zipBefore = fs.readFileSync(zip);
      const refused = box.run(['sync', 'two', '--merge', '--json']);
      expect(refused.code).toBe(9);
      expect(refused.json.error.code).toBe('CONFLICT_DETECTED');
      expect(refused.json.error.message).toContain('edit it to resolve the markers');
      expect(refused.json.error.conflicts).toStrictEqual([
        { path: 'page.txt', zip: 'modified', workspace: 'modified', lines: [[6, 12]] },
      ]);
      const marked = page(two);
      // The other lines are merged already; the markers hold both sides and the base, as git writes them.
      expect(marked.split('\n').slice(0, 13)).toStrictEqual([
        'line 1 by one',
        'line 2',
        'line 3',
        'line 4',
        'line 5',
        '<<<<<<< workspace',
        'line 6 by two',
        '||||||| base',
        'line 6',
        '=======',
        'line 6 by one',
        '>>>>>>> zip',
        'line 7',
      ]);
      expect(fs.readFileSync(zip)).toStrictEqual(zipBefore);
      // Refused while the markers remain, merge or not.
      for (const args of [
        ['sync', 'two', '--merge'],
        ['sync', 'two'],
        ['sync', 'two', '--merge', '--dry-run'],
      ]) {
        const again = box.run([...args, '--json']);
        expect(again.json.error.code).toBe('CONFLICT_DETECTED');
        expect(again.json.error.message).toContain('Conflict markers from a merge are still in');
        expect(again.json.error.conflicts).toStrictEqual([{ path: 'page.txt', markers_at: 6 }]);
      }
      const block = '<<<<<<< workspace\nline 6 by two\n||||||| base\nline 6\n=======\nline 6 by one\n>>>>>>> zip\n';
      const edited = box.run(['edit', 'page.txt', '-s', 'two', '--old', block, '--new', 'line 6 by both\n', '--json']);
      expect(edited.code).toBe(0);
      const synced = box.run(['sync', 'two', '--merge', '--json']).json;
      expect(synced).toMatchObject({ synced: true, files_modified: 1 });
      const resolved = changed({ 1: 'line 1 by one', 6: 'line 6 by both', 12: 'line 12 by two' });
      expect(unzipped('page.txt')).toBe(resolved);
      expect(page(two)).toBe(resolved);
      // Nothing of either side is lost: one takes the resolution in.
      expect(box.run(['sync', 'one', '--merge', '--json']).json.from_zip).toStrictEqual(['M page.txt']);
      expect(page(one)).toBe(resolved);
    },
  );

  it('conflicts whole over a binary file both sides changed, and leaves it as it was', () => {
    fs.writeFileSync(path.join(one, 'logo.bin'), new Uint8Array([0, 9, 9]));
    expect(box.run(['sync', 'one', '--json']).json.synced).toBe(true);
    fs.writeFileSync(path.join(two, 'logo.bin'), new Uint8Array([0, 7, 7]));
    const refused = box.run(['sync', 'two', '--merge', '--json']).json.error;
    expect(refused.code).toBe('CONFLICT_DETECTED');
    expect(refused.conflicts).toStrictEqual([
      { path: 'logo.bin', zip: 'modified', workspace: 'modified', reason: 'binary' },
    ]);
    expect(refused.message).not.toContain('markers');
    expect([...fs.readFileSync(path.join(two, 'logo.bin'))]).toStrictEqual([0, 7, 7]);
  });
});

describe('a merge with nothing of its own to write', () => {
  it('leaves the zip as it was (bytes and time), makes no backup, and takes the zip into the workspace', () => {
    fs.writeFileSync(path.join(one, 'other.txt'), 'other by one\n');
    fs.writeFileSync(path.join(one, 'new.txt'), 'new\n');
    expect(box.run(['sync', 'one', '--no-backup', '--json']).json.synced).toBe(true);
    fs.writeFileSync(path.join(two, 'other.txt'), 'other by one\n'); // the same change: nothing of its own
    const before = { bytes: fs.readFileSync(zip), mtime: fs.statSync(zip).mtimeMs, ino: fs.statSync(zip).ino };
    const dry = box.run(['sync', 'two', '--merge', '--dry-run', '--json']).json;
    expect(dry).toMatchObject({ files_modified: 0, from_workspace: [] });
    const synced = box.run(['sync', 'two', '--merge', '--json']).json;
    expect(synced).toStrictEqual({
      synced: true,
      backup_path: null,
      files_modified: 0,
      files_added: 0,
      files_deleted: 0,
      from_zip: ['A new.txt', 'M other.txt'],
    });
    expect(fs.readFileSync(zip)).toStrictEqual(before.bytes);
    expect(fs.statSync(zip).mtimeMs).toBe(before.mtime);
    expect(fs.statSync(zip).ino).toBe(before.ino);
    expect(fs.existsSync(`${zip}.bak`)).toBe(false);
    expect(fs.readFileSync(path.join(two, 'new.txt'), 'utf8')).toBe('new\n');
    expect(box.run(['status', 'two', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
    expect(box.run(['status', 'two', '--json']).json.zip_changed).toBeUndefined();
    // The base moved on: a later change of two's syncs plainly.
    fs.writeFileSync(path.join(two, 'page.txt'), 'page by two\n');
    expect(box.run(['sync', 'two', '--json']).json).toMatchObject({ synced: true, files_modified: 1 });
  });
});

describe('a lazy session', () => {
  it('merges the lines of an entry it extracted and changed', () => {
    box.run(['close', 'two', '--json']);
    const lazy = box.run(['open', zip, '--name', 'lazy', '--lazy', '--json']).json.workspace_path;
    expect(box.run(['extract', 'page.txt', '-s', 'lazy', '--json']).code).toBe(0);
    fs.writeFileSync(path.join(one, 'page.txt'), changed({ 1: 'line 1 by one' }));
    expect(box.run(['sync', 'one', '--json']).json.synced).toBe(true);
    fs.writeFileSync(path.join(lazy, 'page.txt'), changed({ 12: 'line 12 lazily' }));
    const synced = box.run(['sync', 'lazy', '--merge', '--json']).json;
    expect(synced).toMatchObject({ synced: true, merged_by_lines: ['page.txt'] });
    expect(page(lazy)).toBe(changed({ 1: 'line 1 by one', 12: 'line 12 lazily' }));
  });
});

describe('over MCP', () => {
  it('marks a conflict, refuses while marked, and syncs once zipfs_edit resolved it', async () => {
    bothChange({ 4: 'line 4 by two' }, { 4: 'line 4 by one' });
    const mcp = await connect(box.home);
    try {
      const refused = await call(mcp.client, 'zipfs_sync', { session: 'two', merge: true });
      expect(refused.isError).toBe(true);
      expect(refused.data.error.conflicts).toStrictEqual([
        { path: 'page.txt', zip: 'modified', workspace: 'modified', lines: [[4, 10]] },
      ]);
      const read = await call(mcp.client, 'zipfs_read', { session: 'two', path: 'page.txt' });
      expect(read.data.content).toContain('<<<<<<< workspace\nline 4 by two\n');
      expect((await call(mcp.client, 'zipfs_sync', { session: 'two', merge: true })).data.error.message).toContain(
        'still in the workspace file "page.txt" (line 4)',
      );
      const block = '<<<<<<< workspace\nline 4 by two\n||||||| base\nline 4\n=======\nline 4 by one\n>>>>>>> zip\n';
      const edited = await call(mcp.client, 'zipfs_edit', {
        session: 'two',
        path: 'page.txt',
        edits: [{ old_text: block, new_text: 'line 4 by both\n' }],
      });
      expect(edited.isError).toBe(false);
      const synced = await call(mcp.client, 'zipfs_sync', { session: 'two', merge: true });
      expect(synced.data).toMatchObject({ synced: true, files_modified: 1 });
      expect(page(two)).toBe(changed({ 4: 'line 4 by both' }));
    } finally {
      await mcp.close();
    }
  });
});
