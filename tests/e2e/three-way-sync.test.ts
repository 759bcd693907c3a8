/**
 * Two writers on one zip (issue 22): status knows the zip moved, `sync
 * --merge` keeps both sides' changes when they touch different entries,
 * names every entry both changed as a conflict and writes nothing, and leaves
 * the workspace as the new zip. The other writer is another session, or a
 * program that is not zipfs (Python's zipfile in append mode).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';
import { REFERENCE_WHY, expectReferenceClean, pythonRead } from '../helpers/zip-compare.ts';
import { rawEntries } from '../helpers/zip-compare.ts';

const python = needs('python3');

let box: ReturnType<typeof sandbox>;
let zip: string;
let proj: string;
let proj2: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'proj.zip',
    rawZip([
      { name: 'a.txt', data: 'a\n' },
      { name: 'b.txt', data: 'b\n' },
      { name: 'c.txt', data: 'c\n' },
      { name: 'd.txt', data: 'd\n' },
    ]),
  );
  proj = box.run(['open', zip, '--json']).json.workspace_path;
  proj2 = box.run(['open', zip, '--name', 'proj2', '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

/** The zip's contents as Python's zipfile reads them (the tests calling it are skipped without python3). */
const contents = (file: string): Record<string, string> =>
  Object.fromEntries(
    Object.entries(pythonRead(file).contents).map(([name, hex]) => [name, Buffer.from(hex, 'hex').toString()]),
  );
const names = (file: string) => rawEntries(file).order;

/** The first session adds NEWFILE.txt, changes b.txt and deletes c.txt, and syncs. */
function otherWriter(): void {
  fs.writeFileSync(path.join(proj, 'NEWFILE.txt'), 'new\n');
  fs.writeFileSync(path.join(proj, 'b.txt'), 'b from proj\n');
  fs.rmSync(path.join(proj, 'c.txt'));
  expect(box.run(['sync', 'proj', '--json']).json.synced).toBe(true);
}

describe('status of a session whose zip another writer changed', () => {
  it('says what the zip gained, changed and lost since the base, on both surfaces', async () => {
    otherWriter();
    const status = box.run(['status', 'proj2', '--json']).json;
    expect(status.zip_changed).toStrictEqual(['A NEWFILE.txt', 'M b.txt', 'D c.txt']);
    expect(status.modified).toStrictEqual([]);
    const shown = box.run(['status', 'proj2']);
    expect(shown.stderr).toContain("the zip changed since this session's base");
    expect(shown.stderr).toContain('sync --merge takes these in');
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_status', { session: 'proj2' })).data.zip_changed).toStrictEqual([
        'A NEWFILE.txt',
        'M b.txt',
        'D c.txt',
      ]);
      expect((await call(mcp.client, 'zipfs_status', { session: 'proj' })).data.zip_changed).toBeUndefined();
    } finally {
      await mcp.close();
    }
  });
});

describe('sync --merge', () => {
  it.skipIf(python.skip)(
    `keeps both writers' changes to different entries, in the zip's order, and leaves the workspace as the new ` +
      `zip${python.why}`,
    () => {
      otherWriter();
      fs.writeFileSync(path.join(proj2, 'a.txt'), 'a from proj2\n');
      fs.writeFileSync(path.join(proj2, 'e.txt'), 'e\n');
      fs.rmSync(path.join(proj2, 'd.txt'));
      // A plain sync offers the merge first.
      const refused = box.run(['sync', 'proj2', '--json']).json.error;
      expect(refused.code).toBe('CONFLICT_DETECTED');
      expect(refused.message).toContain('Pass --merge to keep those changes');
      // The plan first, writing nothing.
      const before = fs.readFileSync(zip);
      const plan = box.run(['sync', 'proj2', '--merge', '--dry-run', '--json']).json;
      expect(plan).toMatchObject({
        synced: false,
        files_modified: 1,
        files_added: 1,
        files_deleted: 1,
        from_zip: ['A NEWFILE.txt', 'M b.txt', 'D c.txt'],
      });
      expect(fs.readFileSync(zip).equals(before)).toBe(true);

      const merged = box.run(['sync', 'proj2', '--merge', '--json']).json;
      expect(merged).toMatchObject({
        synced: true,
        files_modified: 1,
        files_added: 1,
        files_deleted: 1,
        from_zip: ['A NEWFILE.txt', 'M b.txt', 'D c.txt'],
      });
      expect(names(zip)).toStrictEqual(['a.txt', 'b.txt', 'NEWFILE.txt', 'e.txt']);
      expect(contents(zip)).toStrictEqual({
        'a.txt': 'a from proj2\n',
        'b.txt': 'b from proj\n',
        'NEWFILE.txt': 'new\n',
        'e.txt': 'e\n',
      });
      // The workspace holds the other writer's changes too, and status is clean: the next sync needs no merge.
      expect(fs.readFileSync(path.join(proj2, 'NEWFILE.txt'), 'utf8')).toBe('new\n');
      expect(fs.readFileSync(path.join(proj2, 'b.txt'), 'utf8')).toBe('b from proj\n');
      expect(fs.existsSync(path.join(proj2, 'c.txt'))).toBe(false);
      expect(box.run(['status', 'proj2', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 4,
      });
      fs.writeFileSync(path.join(proj2, 'a.txt'), 'again\n');
      expect(box.run(['sync', 'proj2', '--json']).json).toMatchObject({ synced: true, files_modified: 1 });
    },
  );

  it('names every entry both sides changed, with what each did, and writes nothing', async () => {
    otherWriter();
    fs.writeFileSync(path.join(proj2, 'b.txt'), 'b from proj2\n'); // modified on both sides
    fs.writeFileSync(path.join(proj2, 'c.txt'), 'c from proj2\n'); // deleted there, modified here
    fs.writeFileSync(path.join(proj2, 'NEWFILE.txt'), 'another new\n'); // added on both sides, different bytes
    const before = fs.readFileSync(zip);
    const mcp = await connect(box.home);
    try {
      const refused = (await call(mcp.client, 'zipfs_sync', { session: 'proj2', merge: true })).data.error;
      expect(refused.code).toBe('CONFLICT_DETECTED');
      expect(refused.message).toContain('3 entries were changed both in the zip');
      // A text file both changed in the same line: a conflict by lines, marked in the workspace's file.
      expect(refused.message).toContain('"b.txt" (both changed the same lines: lines 1-7 of the file as marked)');
      expect(refused.message).toContain('"c.txt" (zip: deleted, workspace: modified)');
      expect(refused.message).toContain('"NEWFILE.txt" (zip: added, workspace: added)');
      expect(
        (await call(mcp.client, 'zipfs_sync', { session: 'proj2', merge: true, force: true })).data.error.code,
      ).toBe('INVALID_INPUT');
    } finally {
      await mcp.close();
    }
    expect(fs.readFileSync(zip).equals(before)).toBe(true);
    expect(fs.readFileSync(path.join(proj2, 'b.txt'), 'utf8')).toBe(
      '<<<<<<< workspace\nb from proj2\n||||||| base\nb\n=======\nb from proj\n>>>>>>> zip\n',
    );
    // The same change made on both sides is no conflict.
    fs.writeFileSync(path.join(proj2, 'b.txt'), 'b from proj\n');
    fs.writeFileSync(path.join(proj2, 'NEWFILE.txt'), 'new\n');
    fs.rmSync(path.join(proj2, 'c.txt'));
    // from_zip is the zip's side, as status listed it; a change both sides made is counted there only, not again in
    // files_*.
    expect(box.run(['status', 'proj2', '--json']).json.zip_changed).toStrictEqual([
      'A NEWFILE.txt',
      'M b.txt',
      'D c.txt',
    ]);
    expect(box.run(['sync', 'proj2', '--merge', '--json']).json).toMatchObject({
      synced: true,
      files_added: 0,
      files_modified: 0,
      files_deleted: 0,
      from_zip: ['A NEWFILE.txt', 'M b.txt', 'D c.txt'],
    });
    expect(box.run(['status', 'proj2', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
  });

  it.skipIf(needs('python3').skip)(
    `merges a zip another program appended to (Python's zipfile in append mode)${needs('python3').why}${REFERENCE_WHY}`,
    () => {
      const appended = Bun.spawnSync([
        'python3',
        '-c',
        "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'a') as z: z.writestr('from-python.txt', 'py\\n')",
        zip,
      ]);
      expect(appended.exitCode).toBe(0);
      fs.writeFileSync(path.join(proj2, 'd.txt'), 'd from proj2\n');
      expect(box.run(['status', 'proj2', '--json']).json.zip_changed).toStrictEqual(['A from-python.txt']);
      expect(box.run(['sync', 'proj2', '--merge', '--json']).json).toMatchObject({
        synced: true,
        files_modified: 1,
        from_zip: ['A from-python.txt'],
      });
      expect(contents(zip)).toMatchObject({ 'd.txt': 'd from proj2\n', 'from-python.txt': 'py\n' });
      expect(fs.readFileSync(path.join(proj2, 'from-python.txt'), 'utf8')).toBe('py\n');
      expectReferenceClean(zip);
    },
  );

  it('refuses a zip replaced by something damaged, as open would', () => {
    fs.writeFileSync(path.join(proj2, 'a.txt'), 'changed\n');
    fs.writeFileSync(zip, rawZip([{ name: '../escape.txt', data: 'x' }]));
    expect(box.run(['sync', 'proj2', '--merge', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    fs.writeFileSync(zip, 'not a zip at all');
    expect(box.run(['sync', 'proj2', '--merge', '--json']).json.error.code).toBe('ZIP_INVALID');
  });
});
