/**
 * The workspace diff's decisions in-process (workspace-diff.ts): what counts
 * as unchanged, modified, deleted, renamed or added, which folders are new,
 * and what sync must refuse. Each case is a real session (the zip opened by
 * the compiled binary, its manifest written by zipfs's own writer) changed on
 * disk as another program would, then diffed by the module.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { diffNow, openWith } from '../helpers/opened-session.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const FILES: RawEntry[] = [
  { name: 'a.txt', data: 'alpha' },
  { name: 'docs/b.txt', data: 'bravo' },
  { name: 'docs/c.txt', data: 'charlie' },
];
const WITH_FOLDERS: RawEntry[] = [{ name: 'docs/', data: '', method: 0 }, ...FILES];

function session(entries: RawEntry[], options: { lazy?: boolean } = {}) {
  const zip = writeZip(box.dir, 'w.zip', rawZip(entries));
  return openWith(box, zip, { name: 'w', lazy: options.lazy });
}

/** The diff's lists, as status shows them. */
function lists(opened: ReturnType<typeof session>) {
  const { diff } = diffNow(opened.session);
  return {
    modified: diff.modified,
    added: diff.added,
    deleted: diff.deleted,
    renamed: diff.renamed,
    unchanged: diff.unchangedCount,
  };
}

const at = (root: string, name: string) => path.join(root, name);

describe('diffWorkspace', () => {
  it('finds nothing changed right after open', () => {
    const opened = session(FILES);
    expect(lists(opened)).toStrictEqual({ modified: [], added: [], deleted: [], renamed: [], unchanged: 3 });
  });

  it('lets the content decide when the stat changed: touch and a copy of the same bytes are no change', () => {
    const opened = session(FILES);
    const now = new Date(Date.now() + 5_000);
    fs.utimesSync(at(opened.root, 'a.txt'), now, now);
    fs.writeFileSync(at(opened.root, 'docs/b.txt'), 'bravo');
    expect(lists(opened)).toStrictEqual({ modified: [], added: [], deleted: [], renamed: [], unchanged: 3 });
  });

  it('sees an edit that keeps the size and puts the mtime back (ctime moved)', () => {
    const opened = session(FILES);
    const file = at(opened.root, 'a.txt');
    const before = fs.statSync(file);
    fs.writeFileSync(file, 'ALPHA');
    fs.utimesSync(file, before.atime, before.mtime);
    expect(lists(opened).modified).toStrictEqual(['a.txt']);
  });

  it('says renamed for a moved file, not deleted and added, and deleted for a removed one', () => {
    const opened = session(FILES);
    fs.renameSync(at(opened.root, 'docs/c.txt'), at(opened.root, 'c.txt'));
    fs.rmSync(at(opened.root, 'docs/b.txt'));
    const { entries, diff } = diffNow(opened.session);
    expect(diff.renamed).toStrictEqual([{ from: 'docs/c.txt', to: 'c.txt' }]);
    expect([diff.deleted, diff.added, diff.unchangedCount]).toStrictEqual([['docs/b.txt'], [], 1]);
    const index = entries.find((entry) => entry.path === 'docs/c.txt')!.index;
    expect([diff.states.get(index), diff.renames.get(index)]).toStrictEqual(['renamed', 'c.txt']);
  });

  it('takes a folder replaced by a file of its name as the folder deleted and the file added', () => {
    const opened = session(WITH_FOLDERS);
    fs.rmSync(at(opened.root, 'docs'), { recursive: true });
    fs.writeFileSync(at(opened.root, 'docs'), 'now a file');
    const found = lists(opened);
    expect([found.deleted, found.added, found.modified]).toStrictEqual([
      ['docs/', 'docs/b.txt', 'docs/c.txt'],
      ['docs'],
      [],
    ]);
  });

  it("follows the archive's folder convention: entries for new folders only where it stores them", () => {
    const implied = session(FILES);
    fs.mkdirSync(at(implied.root, 'full'));
    fs.writeFileSync(at(implied.root, 'full/f.txt'), 'f');
    fs.mkdirSync(at(implied.root, 'empty'));
    expect(lists(implied).added).toStrictEqual(['empty/', 'full/f.txt']); // only the empty folder needs an entry
    box.run(['close', 'w', '--force']);

    const stored = session(WITH_FOLDERS);
    fs.mkdirSync(at(stored.root, 'full'));
    fs.writeFileSync(at(stored.root, 'full/f.txt'), 'f');
    fs.mkdirSync(at(stored.root, 'empty'));
    expect(lists(stored).added).toStrictEqual(['empty/', 'full/', 'full/f.txt']);
  });

  it('finds new folders when every file on disk is an entry (only the folders are looked at then)', () => {
    const implied = session(FILES);
    fs.mkdirSync(at(implied.root, 'empty'));
    fs.mkdirSync(at(implied.root, 'outer/inner'), { recursive: true });
    expect(lists(implied).added).toStrictEqual(['empty/', 'outer/inner/']);
    box.run(['close', 'w', '--force']);

    const stored = session(WITH_FOLDERS);
    fs.mkdirSync(at(stored.root, 'docs/sub'));
    expect(lists(stored).added).toStrictEqual(['docs/sub/']);
    fs.writeFileSync(at(stored.root, 'docs/sub/x.txt'), 'x'); // a file not an entry's: every path is looked at
    expect(lists(stored).added).toStrictEqual(['docs/sub/', 'docs/sub/x.txt']);
  });

  it('agrees with zipfs status on the same workspace', () => {
    const opened = session(WITH_FOLDERS);
    fs.writeFileSync(at(opened.root, 'a.txt'), 'changed');
    fs.renameSync(at(opened.root, 'docs/b.txt'), at(opened.root, 'b.txt'));
    fs.rmSync(at(opened.root, 'docs/c.txt'));
    fs.writeFileSync(at(opened.root, 'new.txt'), 'new');
    const found = lists(opened);
    const status = box.run(['status', 'w', '--json']).json;
    expect(status).toMatchObject({
      modified: found.modified,
      added: found.added,
      deleted: found.deleted,
      renamed: found.renamed,
      unchanged_count: found.unchanged,
    });
  });

  describe('what sync must refuse', () => {
    it.skipIf(needs('mkfifo').skip)(`lists a FIFO and a hard link to a file outside${needs('mkfifo').why}`, () => {
      const opened = session(FILES);
      expect(Bun.spawnSync(['mkfifo', at(opened.root, 'pipe')]).exitCode).toBe(0);
      const outside = path.join(box.dir, 'outside.txt');
      fs.writeFileSync(outside, 'outside');
      fs.linkSync(outside, at(opened.root, 'linked.txt'));
      fs.writeFileSync(at(opened.root, 'own.txt'), 'own'); // a file with one link is fine
      const { diff } = diffNow(opened.session);
      expect(diff.unsupported.map((u) => u.path)).toStrictEqual(['linked.txt', 'pipe']);
      expect(diff.unsupported[0]!.reason).toContain('hard link to a file outside the workspace');
      expect(diff.unsupported[1]!.reason).toContain('a zip cannot hold');
    });

    it('lists a name that is not UTF-8, escaped', () => {
      const opened = session(FILES);
      fs.writeFileSync(
        Buffer.concat([Buffer.from(`${opened.root}/bad-`), Buffer.from([0xff]), Buffer.from('.txt')]),
        'x',
      );
      const { diff } = diffNow(opened.session);
      expect(diff.unsupported).toStrictEqual([
        { path: 'bad-\\xff.txt', reason: 'its name is not valid UTF-8; rename it' },
      ]);
      expect(diff.added).toContain('bad-\\xff.txt');
    });
  });

  describe('in a lazy session', () => {
    it('counts the entries never extracted as unchanged, and a file written at one of their paths as modified', () => {
      const opened = session(FILES, { lazy: true });
      expect(lists(opened)).toStrictEqual({ modified: [], added: [], deleted: [], renamed: [], unchanged: 3 });
      fs.mkdirSync(at(opened.root, 'docs'), { recursive: true });
      fs.writeFileSync(at(opened.root, 'docs/b.txt'), 'BRAVO'); // written there without extracting it
      fs.writeFileSync(at(opened.root, 'new.txt'), 'new');
      expect(lists(opened)).toStrictEqual({
        modified: ['docs/b.txt'],
        added: ['new.txt'],
        deleted: [],
        renamed: [],
        unchanged: 2,
      });
    });
  });
});
