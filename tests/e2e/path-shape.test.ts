/**
 * A path that changes kind, and a file where a folder is needed (issue 28,
 * items 1 and 2). A folder entry replaced by a file of the same name (or a
 * file by a folder, a folder by a link) is a deletion and an addition, eager
 * or lazy, through sync and exec. And sync writes no archive with a file where
 * another entry needs a folder (open refuses those): in a lazy session a
 * workspace file over entries only in the zip, and a merge whose other writer
 * added a file beside the workspace's folder, are refused before anything is
 * written, with the way out.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawEntries } from '../helpers/zip-compare.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** The zip's entries: name to content (folders as ''). */
const contents = (zip: string): Record<string, string> =>
  Object.fromEntries([...rawEntries(zip).entries].map(([name, view]) => [name, view.content.toString()]));

/** Whether a fresh eager open accepts the zip. */
function opensAgain(zip: string): boolean {
  const other = sandbox();
  try {
    return other.run(['open', zip]).code === 0;
  } finally {
    other.cleanup();
  }
}

const file = (name: string, data = `${name}\n`): RawEntry => ({ name, data });
const folder = (name: string): RawEntry => ({ name, data: '', method: 0 });

/** a.txt and d/b.txt (and p/q/r.txt), with or without folder entries. */
function archive(storesFolders: boolean): Uint8Array {
  return rawZip(
    storesFolders
      ? [file('a.txt'), folder('d/'), file('d/b.txt'), folder('p/'), folder('p/q/'), file('p/q/r.txt')]
      : [file('a.txt'), file('d/b.txt'), file('p/q/r.txt')],
  );
}

/** Opens the zip eagerly or lazily; a lazy session extracts what the change touches, as a tool would through zipfs. */
function openFor(zip: string, lazy: boolean, touched: string[]): string {
  const root = box.run(['open', zip, '--json', ...(lazy ? ['--lazy'] : [])]).json.workspace_path;
  if (lazy && touched.length > 0) expect(box.run(['extract', ...touched]).code).toBe(0);
  return root;
}

const sessions = [
  { label: 'eager', lazy: false },
  { label: 'lazy', lazy: true },
];
const conventions = [
  { label: 'with folder entries', stores: true },
  { label: 'without folder entries', stores: false },
];

for (const { label, lazy } of sessions) {
  for (const { label: convention, stores } of conventions) {
    describe(`a path that changes kind, ${label}, ${convention}`, () => {
      it('a folder replaced by a file of the same name: the file is added, and synced as a file', () => {
        const zip = writeZip(box.dir, 'swap.zip', archive(stores));
        const root = openFor(zip, lazy, ['d/**']);
        fs.rmSync(path.join(root, 'd'), { recursive: true });
        fs.writeFileSync(path.join(root, 'd'), 'now a file\n');
        const status = box.run(['status', '--json']).json;
        expect(status.added).toStrictEqual(['d']);
        expect(status.deleted).toStrictEqual(stores ? ['d/', 'd/b.txt'] : ['d/b.txt']);
        expect(box.run(['sync', '--json']).json).toMatchObject({
          synced: true,
          files_added: 1,
          files_deleted: stores ? 2 : 1,
        });
        const now = contents(zip);
        expect(now.d).toBe('now a file\n');
        expect(Object.keys(now).filter((name) => name.startsWith('d/'))).toStrictEqual([]);
        expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
        expect(opensAgain(zip)).toBe(true);
      });

      it('a file replaced by a folder of the same name: the folder and its file are added', () => {
        const zip = writeZip(box.dir, 'swap.zip', archive(stores));
        const root = openFor(zip, lazy, ['a.txt']);
        fs.rmSync(path.join(root, 'a.txt'));
        fs.mkdirSync(path.join(root, 'a.txt'));
        fs.writeFileSync(path.join(root, 'a.txt', 'x'), 'inside\n');
        const status = box.run(['status', '--json']).json;
        expect(status.deleted).toStrictEqual(['a.txt']);
        expect(status.added).toStrictEqual(stores ? ['a.txt/', 'a.txt/x'] : ['a.txt/x']);
        expect(box.run(['sync', '--json']).json.synced).toBe(true);
        const now = contents(zip);
        expect(now['a.txt/x']).toBe('inside\n');
        expect('a.txt' in now).toBe(false);
        expect('a.txt/' in now).toBe(stores);
        expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
        expect(opensAgain(zip)).toBe(true);
      });

      it('a folder replaced by a link, and a nested folder by a file', () => {
        const zip = writeZip(box.dir, 'swap.zip', archive(stores));
        const root = openFor(zip, lazy, ['d/**', 'p/**']);
        fs.rmSync(path.join(root, 'd'), { recursive: true });
        fs.symlinkSync('a.txt', path.join(root, 'd'));
        fs.rmSync(path.join(root, 'p', 'q'), { recursive: true });
        fs.writeFileSync(path.join(root, 'p', 'q'), 'q is a file\n');
        const status = box.run(['status', '--json']).json;
        expect(status.added).toStrictEqual(['d', 'p/q']);
        expect(status.deleted).toStrictEqual(
          stores ? ['d/', 'd/b.txt', 'p/q/', 'p/q/r.txt'] : ['d/b.txt', 'p/q/r.txt'],
        );
        expect(box.run(['sync', '--json']).json.synced).toBe(true);
        const entries = rawEntries(zip).entries;
        expect(entries.get('d')!.entry.isSymlink).toBe(true);
        expect(entries.get('d')!.content.toString()).toBe('a.txt');
        expect(entries.get('p/q')!.content.toString()).toBe('q is a file\n');
        expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
        expect(opensAgain(zip)).toBe(true);
      });
    });
  }
}

describe('zipfs exec', () => {
  it('replaces a folder entry with a file of the same name', () => {
    const zip = writeZip(box.dir, 'swap.zip', archive(true));
    const result = box.run(['exec', zip, '--', 'sh', '-c', 'rm -r d && echo x > d']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1 added, 2 deleted');
    expect(contents(zip).d).toBe('x\n');
  });
});

describe('a file where entries only in the zip need a folder (lazy)', () => {
  for (const { label: convention, stores } of conventions) {
    for (const kind of ['file', 'link'] as const) {
      it(
        `refuses a workspace ${kind} over a folder only in the zip, ${convention}, and syncs once those entries ` +
          `are deleted`,
        () => {
          const zip = writeZip(box.dir, 'lazy.zip', archive(stores));
          const before = fs.readFileSync(zip);
          const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
          const at = path.join(root, 'd');
          if (kind === 'file') fs.writeFileSync(at, 'shadow\n');
          else fs.symlinkSync('a.txt', at);
          for (const args of [['sync', '--dry-run'], ['sync']]) {
            const refused = box.run(args);
            expect(refused.code).toBe(2);
            expect(refused.stderr).toContain('[INVALID_INPUT]');
            expect(refused.stderr).toContain(
              `"d" is a ${kind} in the workspace, but "d/b.txt", only in the zip (never extracted), needs it to be a ` +
                `folder`,
            );
            expect(refused.stderr).toContain('zipfs delete d --recursive');
            expect(fs.readFileSync(zip).equals(before)).toBe(true);
          }
          // The way out the message gives: the zip's entries under d deleted, the file kept.
          fs.renameSync(at, `${at}.keep`);
          expect(box.run(['delete', 'd', '--recursive']).code).toBe(0);
          fs.renameSync(`${at}.keep`, at);
          expect(box.run(['sync', '--json']).json.synced).toBe(true);
          expect(Object.keys(contents(zip)).sort()).toStrictEqual(
            ['a.txt', 'd', 'p/', 'p/q/', 'p/q/r.txt'].filter((name) => stores || !name.endsWith('/')),
          );
          expect(opensAgain(zip)).toBe(true);
        },
      );
    }
  }

  it('refuses a rename into such a path, over MCP too', async () => {
    const zip = writeZip(box.dir, 'lazy.zip', archive(false));
    const before = fs.readFileSync(zip);
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    box.run(['extract', 'a.txt']);
    fs.renameSync(path.join(root, 'a.txt'), path.join(root, 'd')); // another tool's mv: zipfs mv refuses it
    expect(box.run(['status', '--json']).json.renamed).toStrictEqual([{ from: 'a.txt', to: 'd' }]);
    const { client, close } = await connect(box.home);
    try {
      const refused = await call(client, 'zipfs_sync', {});
      expect(refused.isError).toBe(true);
      expect(refused.data.error.code).toBe('INVALID_INPUT');
      expect(refused.data.error.message).toContain(
        '"d/b.txt", only in the zip (never extracted), needs it to be a folder',
      );
      expect(refused.data.error.message).toContain('zipfs_delete with path: "d", recursive: true');
    } finally {
      await close();
    }
    expect(fs.readFileSync(zip).equals(before)).toBe(true);
  });
});

describe('a merge whose other writer added a file where the workspace has a folder', () => {
  for (const { label, lazy } of sessions) {
    it(`is a conflict, and nothing is written (${label})`, () => {
      const zip = writeZip(box.dir, 'm.zip', rawZip([file('a.txt')]));
      const root = box.run(['open', zip, '--json', ...(lazy ? ['--lazy'] : [])]).json.workspace_path;
      fs.mkdirSync(path.join(root, 'x'));
      fs.writeFileSync(path.join(root, 'x', 'y.txt'), 'mine\n');
      writeZip(box.dir, 'm.zip', rawZip([file('a.txt'), file('x', 'theirs\n')])); // the other writer
      const before = fs.readFileSync(zip);
      for (const args of [
        ['sync', '--merge', '--dry-run'],
        ['sync', '--merge'],
      ]) {
        const refused = box.run(args);
        expect(refused.stderr).toContain('[CONFLICT_DETECTED]');
        expect(refused.stderr).toContain('"x" (zip: a file, workspace: a folder (for "x/y.txt"))');
        expect(fs.readFileSync(zip).equals(before)).toBe(true);
      }
      expect(fs.readFileSync(path.join(root, 'x', 'y.txt'), 'utf8')).toBe('mine\n');
    });
  }
});
