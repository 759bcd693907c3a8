/**
 * Folder entries follow the archive's convention, and renames are renames
 * (issue 21, points 2 and 3): a jar keeps an entry for every folder, a zip
 * without folder entries gets none, status and sync agree about folders, and
 * a moved entry is reported as moved and written where it stood.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { has, needs } from '../helpers/tools.ts';
import { pythonRead } from '../helpers/zip-compare.ts';
import { rawEntries } from '../helpers/zip-compare.ts';

const python = needs('python3');

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** The zip's entry names in archive order, read by another reader where there is one. */
const names = (zip: string): string[] => (has('python3') ? pythonRead(zip).names : rawEntries(zip).order);

const jar = () =>
  rawZip([
    { name: 'META-INF/', data: '', method: 0 },
    { name: 'META-INF/MANIFEST.MF', data: 'Manifest-Version: 1.0\n' },
    { name: 'com/', data: '', method: 0 },
    { name: 'com/acme/', data: '', method: 0 },
    { name: 'com/acme/App.class', data: 'cafebabe'.repeat(40) },
    { name: 'proj/', data: '', method: 0 },
    { name: 'proj/tests/', data: '', method: 0 },
    { name: 'proj/tests/a_test.py', data: 'def test_a(): pass\n' },
    { name: 'proj/tests/b_test.py', data: 'def test_b(): pass\n' },
  ]);

describe('folder entries in an archive that stores them (a jar)', () => {
  it('gives a new folder an entry, made with mkdir or by writing a file into it, before its files', () => {
    const zip = writeZip(box.dir, 'app.jar', jar());
    box.run(['open', zip]);
    expect(box.run(['mkdir', 'com/acme/extra', '--json']).json).toStrictEqual({
      created: true,
      path: 'com/acme/extra',
    });
    expect(box.run(['mkdir', 'com/acme/extra', '--json']).json).toStrictEqual({
      created: false,
      path: 'com/acme/extra',
    });
    box.run(['write', 'res/strings/en.txt', 'hello']);
    expect(box.run(['status', '--json']).json.added).toStrictEqual([
      'com/acme/extra/',
      'res/',
      'res/strings/',
      'res/strings/en.txt',
    ]);
    expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_added: 4 });
    expect(names(zip).slice(-4)).toStrictEqual(['com/acme/extra/', 'res/', 'res/strings/', 'res/strings/en.txt']);
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 13,
    });
  });

  it('moves a folder as a rename: its entry and its files keep their places under the new names', () => {
    const zip = writeZip(box.dir, 'app.jar', jar());
    box.run(['open', zip]);
    expect(box.run(['mv', 'proj/tests', 'proj/test', '--json']).json.moved).toBe(true);
    const status = box.run(['status', '--json']).json;
    expect(status).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      renamed: [
        { from: 'proj/tests/', to: 'proj/test/' },
        { from: 'proj/tests/a_test.py', to: 'proj/test/a_test.py' },
        { from: 'proj/tests/b_test.py', to: 'proj/test/b_test.py' },
      ],
      unchanged_count: 6,
    });
    expect(box.run(['status']).stdout).toContain('R proj/tests/a_test.py -> proj/test/a_test.py');
    expect(box.run(['sync', '--json']).json).toMatchObject({
      synced: true,
      files_added: 0,
      files_deleted: 0,
      files_renamed: 3,
    });
    expect(names(zip)).toStrictEqual([
      'META-INF/',
      'META-INF/MANIFEST.MF',
      'com/',
      'com/acme/',
      'com/acme/App.class',
      'proj/',
      'proj/test/',
      'proj/test/a_test.py',
      'proj/test/b_test.py',
    ]);
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 9,
    });
  });
});

describe('folders in an archive that stores no folder entries', () => {
  const flat = () =>
    rawZip([
      { name: 'README.md', data: '# app\n' },
      { name: 'src/main.py', data: 'print("hi")\n' },
      { name: 'lib/util.py', data: 'X = 1\n' },
    ]);

  it("adds no entry for a new folder with files, and deleting a folder's last file leaves status clean after sync", () => {
    const zip = writeZip(box.dir, 'flat.zip', flat());
    box.run(['open', zip]);
    box.run(['write', 'docs/guide.md', 'guide']);
    box.run(['delete', 'src/main.py']);
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: ['docs/guide.md'],
      deleted: ['src/main.py'],
      unchanged_count: 2,
    });
    expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_added: 1, files_deleted: 1 });
    expect(names(zip)).toStrictEqual(['README.md', 'lib/util.py', 'docs/guide.md']);
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 3,
    });
    expect(box.run(['close', '--json']).code).toBe(0); // no unsynced change left to refuse over
  });

  it('keeps an empty folder made on purpose, as the only entry that can hold it', () => {
    const zip = writeZip(box.dir, 'flat.zip', flat());
    box.run(['open', zip]);
    box.run(['mkdir', 'cache']);
    expect(box.run(['status', '--json']).json.added).toStrictEqual(['cache/']);
    box.run(['sync']);
    expect(names(zip)).toContain('cache/');
    expect(box.run(['status', '--json']).json.added).toStrictEqual([]);
  });
});

describe('renames', () => {
  it.skipIf(python.skip)(
    `reports a wheel's renamed .dist-info as renames, shows no unchanged content twice, and keeps RECORD last${python.why}`,
    async () => {
      const license = 'Permission is hereby granted, free of charge.\n'.repeat(200);
      const wheel = writeZip(
        box.dir,
        'pkg-1.0-py3-none-any.whl',
        rawZip([
          { name: 'pkg/__init__.py', data: '__version__ = "1.0"\n' },
          { name: 'pkg-1.0.dist-info/LICENSE', data: license },
          { name: 'pkg-1.0.dist-info/METADATA', data: 'Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n' },
          { name: 'pkg-1.0.dist-info/WHEEL', data: 'Wheel-Version: 1.0\n' },
          { name: 'pkg-1.0.dist-info/RECORD', data: 'pkg/__init__.py,,\npkg-1.0.dist-info/RECORD,,\n' },
        ]),
      );
      const root = box.run(['open', wheel, '--json']).json.workspace_path;
      fs.renameSync(path.join(root, 'pkg-1.0.dist-info'), path.join(root, 'pkg-1.1.dist-info'));
      for (const file of ['METADATA', 'RECORD']) {
        const at = path.join(root, 'pkg-1.1.dist-info', file);
        fs.writeFileSync(at, fs.readFileSync(at, 'utf8').replaceAll('1.0', '1.1'));
      }
      const mcp = await connect(box.home);
      try {
        const status = (await call(mcp.client, 'zipfs_status')).data;
        expect(status.added).toStrictEqual([]);
        expect(status.deleted).toStrictEqual([]);
        expect(status.renamed).toStrictEqual([
          { from: 'pkg-1.0.dist-info/LICENSE', to: 'pkg-1.1.dist-info/LICENSE' },
          { from: 'pkg-1.0.dist-info/METADATA', to: 'pkg-1.1.dist-info/METADATA', modified: true },
          { from: 'pkg-1.0.dist-info/RECORD', to: 'pkg-1.1.dist-info/RECORD', modified: true },
          { from: 'pkg-1.0.dist-info/WHEEL', to: 'pkg-1.1.dist-info/WHEEL' },
        ]);
        const diff = (await call(mcp.client, 'zipfs_diff')).data;
        expect(diff.diff).not.toContain('Permission is hereby granted'); // the LICENSE moved; its text is not shown
        expect(diff.diff).toContain('rename from pkg-1.0.dist-info/LICENSE\nrename to pkg-1.1.dist-info/LICENSE\n');
        expect(diff.diff).toContain('-Version: 1.0\n+Version: 1.1\n');
        expect(diff.diff.length).toBeLessThan(2000);
        expect((await call(mcp.client, 'zipfs_sync')).data).toMatchObject({
          synced: true,
          files_modified: 0,
          files_added: 0,
          files_deleted: 0,
          files_renamed: 4,
        });
      } finally {
        await mcp.close();
      }
      expect(names(wheel)).toStrictEqual([
        'pkg/__init__.py',
        'pkg-1.1.dist-info/LICENSE',
        'pkg-1.1.dist-info/METADATA',
        'pkg-1.1.dist-info/WHEEL',
        'pkg-1.1.dist-info/RECORD',
      ]);
      expect(Buffer.from(pythonRead(wheel).contents['pkg-1.1.dist-info/LICENSE']!, 'hex').toString()).toBe(license);
      expect(box.run(['status', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 5,
      });
    },
  );

  it('makes folders over MCP with zipfs_mkdir, and refuses one over a file', async () => {
    const zip = writeZip(box.dir, 'app.jar', jar());
    const mcp = await connect(box.home);
    try {
      await call(mcp.client, 'zipfs_open', { path: zip });
      expect((await call(mcp.client, 'zipfs_mkdir', { path: 'a/b/c' })).data).toStrictEqual({
        created: true,
        path: 'a/b/c',
      });
      expect((await call(mcp.client, 'zipfs_mkdir', { path: 'x/y', parents: false })).data.error.code).toBe(
        'PATH_NOT_FOUND',
      );
      expect((await call(mcp.client, 'zipfs_mkdir', { path: 'META-INF/MANIFEST.MF' })).data.error.code).toBe(
        'INVALID_INPUT',
      );
      expect((await call(mcp.client, 'zipfs_status')).data.added).toStrictEqual(['a/', 'a/b/', 'a/b/c/']);
    } finally {
      await mcp.close();
    }
  });
});
