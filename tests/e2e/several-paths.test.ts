/**
 * Several paths per call (issue 31, point 6): delete and move take lists and
 * globs, edit applies the same edits across them. Every path is checked first
 * and nothing changes when one fails; each path's result is reported; eager and
 * lazy sessions alike (a lazy session's entries are matched in the zip). Driven
 * through dist/zipfs on the CLI and over MCP with the SDK's Client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { rawEntries } from '../helpers/zip-compare.ts';

const slides = [1, 2, 3, 4, 5].flatMap((n): RawEntry[] => [
  { name: `ppt/slides/slide${n}.xml`, data: `<p:sld n="${n}">alpha</p:sld>`, method: 8 },
  { name: `ppt/slides/_rels/slide${n}.xml.rels`, data: `<Relationships n="${n}"/>`, method: 8 },
]);
const ENTRIES: RawEntry[] = [
  { name: 'ppt/presentation.xml', data: '<p:presentation>alpha</p:presentation>', method: 8 },
  ...slides,
  { name: 'docs/a.txt', data: 'alpha one\nalpha two\n', method: 8 },
  { name: 'docs/b.txt', data: 'beta\n', method: 8 },
  { name: 'notes.txt', data: 'alpha\n', method: 8 },
  { name: 'img.png', data: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0, 1, 2, 3, 0]), method: 0 },
];

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'deck.zip', rawZip(ENTRIES));
});
afterEach(() => box.cleanup());

const names = () => rawEntries(zip).order;

describe.each([
  ['an eager session', []],
  ['a lazy session', ['--lazy']],
])('in %s, on the CLI', (_, openFlags) => {
  beforeEach(() => {
    expect(box.run(['open', zip, ...openFlags]).code).toBe(0);
  });

  it('deletes a list and a glob in one call, each path reported, and sync drops them', () => {
    const done = box.run(['delete', 'ppt/slides/slide3.xml', 'ppt/slides/_rels/slide3*', 'docs/b.txt', '--json']);
    expect(done.json).toStrictEqual({
      deleted: true,
      results: [
        { path: 'ppt/slides/slide3.xml' },
        { path: 'ppt/slides/_rels/slide3.xml.rels' },
        { path: 'docs/b.txt' },
      ],
      count: 3,
    });
    expect(box.run(['status', '--json']).json.deleted).toStrictEqual([
      'docs/b.txt',
      'ppt/slides/_rels/slide3.xml.rels',
      'ppt/slides/slide3.xml',
    ]);
    expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_deleted: 3 });
    expect(names()).not.toContain('ppt/slides/slide3.xml');
    expect(names()).toContain('ppt/slides/slide4.xml');
    expect(names()).toHaveLength(ENTRIES.length - 3);
  });

  it('deletes nothing when one path is missing or a folder lacks --recursive', () => {
    const missing = box.run(['delete', 'docs/a.txt', 'nothing-*.xml', '--json']);
    expect(missing.code).toBe(ERROR_CODES.PATH_NOT_FOUND.exit);
    expect(missing.json.error.message).toContain('nothing-*.xml');
    const folder = box.run(['delete', 'notes.txt', 'docs', '--json']);
    expect(folder.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(folder.json.error.message).toContain('"docs" is a folder that is not empty');
    expect(box.run(['status', '--json']).json.deleted).toStrictEqual([]);
  });

  it('takes files only with a glob unless --recursive', () => {
    expect(box.run(['delete', 'ppt/*', '--json']).json.results).toStrictEqual([{ path: 'ppt/presentation.xml' }]);
    expect(box.run(['delete', 'ppt/*', '-r', '--json']).json.results).toStrictEqual([{ path: 'ppt/slides' }]);
    expect(box.run(['status', '--json']).json.deleted).toHaveLength(11);
  });

  it('moves several paths into a folder, as mv does, and refuses them all when one would replace a file', () => {
    box.run(['write', 'old/notes.txt', 'mine']);
    const refused = box.run(['mv', 'docs/a.txt', 'notes.txt', 'old/', '--json']);
    expect(refused.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(refused.json.error.message).toContain('"old/notes.txt" already exists');
    expect(box.run(['read', 'docs/a.txt']).code).toBe(0);
    box.run(['delete', 'old/notes.txt']);
    const moved = box.run(['mv', 'docs/a.txt', 'notes.txt', 'ppt/slides/slide1*', 'old/', '--json']);
    expect(moved.json).toStrictEqual({
      moved: true,
      results: [
        { path: 'docs/a.txt', to: 'old/a.txt' },
        { path: 'notes.txt', to: 'old/notes.txt' },
        { path: 'ppt/slides/slide1.xml', to: 'old/slide1.xml' },
      ],
      count: 3,
    });
    expect(box.run(['read', 'old/a.txt']).stdout).toBe('alpha one\nalpha two\n');
    expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_renamed: 3 });
    expect(names()).toContain('old/slide1.xml');
    expect(names()).not.toContain('notes.txt');
  });

  it('keeps the answer of one move as it was, a trailing slash moving into the folder', () => {
    expect(box.run(['mv', 'notes.txt', 'docs/', '--json']).json).toStrictEqual({
      moved: true,
      from: 'notes.txt',
      to: 'docs/notes.txt',
    });
    expect(box.run(['delete', 'docs/notes.txt', '--json']).json).toStrictEqual({
      deleted: true,
      path: 'docs/notes.txt',
    });
  });

  it('edits every file a glob names in one call: edits a file lacks are skipped, non-text files too', () => {
    const done = box.run(['edit', '*', '--old', 'alpha', '--new', 'omega', '--replace-all', '--json']);
    expect(done.code).toBe(0);
    const { diff, ...rest } = done.json;
    expect(rest).toStrictEqual({
      replacements: 9,
      count: 8,
      unchanged_count: 6,
      results: [
        { path: 'docs/a.txt', replacements: 2 },
        { path: 'ppt/slides/slide1.xml', replacements: 1 },
        { path: 'ppt/slides/slide2.xml', replacements: 1 },
        { path: 'ppt/slides/slide3.xml', replacements: 1 },
        { path: 'ppt/slides/slide4.xml', replacements: 1 },
        { path: 'ppt/slides/slide5.xml', replacements: 1 },
        { path: 'ppt/presentation.xml', replacements: 1 },
        { path: 'img.png', replacements: 0, skipped: 'not text' },
        { path: 'notes.txt', replacements: 1 },
      ],
    });
    expect(diff).toContain('+omega one');
    expect(box.run(['read', 'ppt/slides/slide4.xml']).stdout).toBe('<p:sld n="4">omega</p:sld>');
    expect(box.run(['status', '--json']).json.modified).toHaveLength(8);
  });

  it('writes no file when one of them fails: a listed binary, or an old_text found twice', () => {
    const binary = box.run(['edit', 'notes.txt', 'img.png', '--old', 'alpha', '--new', 'x', '--json']);
    expect(binary.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(binary.json.error.message).toContain('Nothing was written to any file');
    const twice = box.run(['edit', 'notes.txt', 'docs/a.txt', '--old', 'alpha', '--new', 'x', '--json']);
    expect(twice.code).toBe(ERROR_CODES.EDIT_MISMATCH.exit);
    expect(twice.json.error.message).toContain('"docs/a.txt" 2 times');
    const none = box.run(['edit', 'docs/*', '--old', 'gamma', '--new', 'x', '--json']);
    expect(none.code).toBe(ERROR_CODES.EDIT_MISMATCH.exit);
    expect(box.run(['status', '--json']).json.modified).toStrictEqual([]);
  });
});

describe('over MCP', () => {
  it('deletes, moves and edits with paths in a lazy session, extracting only what changes', async () => {
    const { client, close } = await connect(box.home);
    try {
      expect((await call(client, 'zipfs_open', { path: zip, lazy: true })).data.not_extracted).toBe(15);
      const deleted = await call(client, 'zipfs_delete', { paths: ['ppt/slides/slide2.xml', 'ppt/slides/_rels/*2*'] });
      expect(deleted.data).toStrictEqual({
        deleted: true,
        results: [{ path: 'ppt/slides/slide2.xml' }, { path: 'ppt/slides/_rels/slide2.xml.rels' }],
        count: 2,
      });
      const moved = await call(client, 'zipfs_move', { paths: ['docs/*.txt'], to: 'text' });
      expect(moved.data.results).toStrictEqual([
        { path: 'docs/a.txt', to: 'text/a.txt' },
        { path: 'docs/b.txt', to: 'text/b.txt' },
      ]);
      const edited = await call(client, 'zipfs_edit', {
        path: 'ppt/slides/*.xml',
        edits: [{ old_text: 'alpha', new_text: 'omega' }],
        diff: false,
      });
      expect(edited.data).toStrictEqual({
        replacements: 4,
        count: 4,
        unchanged_count: 0,
        diff: '',
        results: [1, 3, 4, 5].map((n) => ({ path: `ppt/slides/slide${n}.xml`, replacements: 1 })),
      });
      // The two moved files and the four edited ones were extracted; the deleted ones never were.
      expect((await call(client, 'zipfs_path', {})).data.not_extracted).toBe(15 - 2 - 2 - 4);
      const both = await call(client, 'zipfs_delete', { path: 'notes.txt', paths: ['missing.txt'] });
      expect(both.isError).toBe(true);
      expect(both.data.error.code).toBe('PATH_NOT_FOUND');
      expect((await call(client, 'zipfs_sync', {})).data).toMatchObject({
        synced: true,
        files_deleted: 2,
        files_modified: 4,
        files_renamed: 2,
      });
    } finally {
      await close();
    }
    expect(names()).toContain('text/a.txt');
    expect(names()).toContain('notes.txt');
  });

  it('cuts a long list of results to fit the answer, with the whole count', async () => {
    const many = Array.from({ length: 4000 }, (_, i): RawEntry => ({ name: `logs/run-${i}.log`, data: 'x\n' }));
    const big = writeZip(box.dir, 'logs.zip', rawZip(many));
    const { client, close } = await connect(box.home);
    try {
      await call(client, 'zipfs_open', { path: big, lazy: true });
      const done = await call(client, 'zipfs_delete', { path: '*.log' });
      expect(done.data.count).toBe(4000);
      expect(done.data.truncated).toBe(true);
      expect(done.data.results.length).toBeLessThan(4000);
      expect(done.text.length).toBeLessThan(100_000);
    } finally {
      await close();
    }
  });
});
