/**
 * The final-shape check in-process (final-shape.ts): before a byte is written,
 * a sync whose archive would hold a file where a folder is needed, or two
 * entries at one path, is refused, with the way out for whose side it is. The
 * sessions are real (opened by the binary); the diff and, for a merge, the plan
 * are read by zipfs's own modules from the disk and the zip as they are.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { ZipfsError } from '../../src/base/errors.ts';
import { assertFinalShape } from '../../src/sync/final-shape.ts';
import { planMerge } from '../../src/sync/merge-plan.ts';
import { placeLeniently, readCurrentZip, type PlacedEntry } from '../../src/sync/zip-changes.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { diffNow, openWith, type Opened } from '../helpers/opened-session.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const ENTRIES: RawEntry[] = [
  { name: 'a.txt', data: 'alpha' },
  { name: 'docs/b.txt', data: 'bravo' },
];

function opened(entries: RawEntry[], options: { lazy?: boolean } = {}): Opened & { zip: string } {
  const zip = writeZip(box.dir, 'f.zip', rawZip(entries));
  return { zip, ...openWith(box, zip, { name: 'f', lazy: options.lazy }) };
}

/** The check as a plain sync runs it. */
function checkSync({ session }: Opened): void {
  const { base, entries, diff } = diffNow(session);
  assertFinalShape({ base, entries, diff });
}

/** The zip's entries now, placed as a merge places them. */
const placedNow = (zip: string) => readCurrentZip(zip, (_source, directory) => placeLeniently(directory.entries))!;

/**
 * The check as a merge runs it: the plan made against the zip as it is now, with `extra` steps of
 * entries the other writer added appended (entries the planner itself refuses first, since
 * merge-clashes.ts finds every clash found so far: the shape check is the backstop behind it).
 */
function checkMerge({ session, root, zip }: Opened & { zip: string }, extra: PlacedEntry[] = []): void {
  const { base, entries, diff } = diffNow(session);
  const crcOf = (relative: string) => zlib.crc32(fs.readFileSync(path.join(root, relative))) >>> 0;
  const plan = planMerge({ base: entries, diff, now: placedNow(zip), crcOf });
  plan.steps.push(...extra.map((placed) => ({ kind: 'zip' as const, ...placed })));
  assertFinalShape({ base, entries, diff, plan });
}

/** An entry as another writer's zip holds it, placed: written to a zip of its own and read back. */
function othersEntry(name: string, data: string): PlacedEntry {
  const zip = writeZip(box.dir, 'other.zip', rawZip([{ name, data }]));
  return placedNow(zip)[0]!;
}

/** The refusal's code and message, or 'passed'. */
function outcome(check: () => void): { code: string; message: string } | 'passed' {
  try {
    check();
    return 'passed';
  } catch (error) {
    if (!(error instanceof ZipfsError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('assertFinalShape', () => {
  it('passes a sync that writes no new path, and one whose new paths fit', () => {
    const eager = opened(ENTRIES);
    expect(outcome(() => checkSync(eager))).toBe('passed');
    fs.writeFileSync(path.join(eager.root, 'a.txt'), 'changed');
    fs.renameSync(path.join(eager.root, 'docs/b.txt'), path.join(eager.root, 'b.txt'));
    fs.mkdirSync(path.join(eager.root, 'notes'));
    fs.writeFileSync(path.join(eager.root, 'notes/new.txt'), 'new');
    expect(outcome(() => checkSync(eager))).toBe('passed');
  });

  it('refuses, in a lazy session, a file in the workspace where an entry only in the zip needs a folder', () => {
    const lazy = opened(ENTRIES, { lazy: true });
    fs.writeFileSync(path.join(lazy.root, 'docs'), 'a file where the folder docs/ is');
    const refused = outcome(() => checkSync(lazy));
    expect(refused).toMatchObject({ code: 'INVALID_INPUT' });
    const { message } = refused as { message: string };
    expect(message).toContain(
      '"docs" is a file in the workspace, but "docs/b.txt", only in the zip (never extracted), needs it to be a folder',
    );
    expect(message).toContain('nothing was written');
  });

  it('passes a lazy session whose new paths stand beside the entries never extracted', () => {
    const lazy = opened(ENTRIES, { lazy: true });
    fs.mkdirSync(path.join(lazy.root, 'docs'));
    fs.writeFileSync(path.join(lazy.root, 'docs/c.txt'), 'charlie');
    expect(outcome(() => checkSync(lazy))).toBe('passed');
  });

  describe('in a merge', () => {
    it("passes the other writer's entries beside the workspace's", () => {
      const session = opened(ENTRIES);
      fs.writeFileSync(path.join(session.root, 'ours.txt'), 'ours');
      writeZip(box.dir, 'f.zip', rawZip([...ENTRIES, { name: 'theirs/t.txt', data: 'theirs' }])); // the other writer
      expect(outcome(() => checkMerge(session))).toBe('passed');
    });

    it("refuses, as a conflict, the other writer's file where the workspace's new file needs a folder", () => {
      const session = opened(ENTRIES);
      fs.mkdirSync(path.join(session.root, 'notes'));
      fs.writeFileSync(path.join(session.root, 'notes/new.txt'), 'ours');
      const refused = outcome(() => checkMerge(session, [othersEntry('notes', 'theirs, a file')]));
      expect(refused).toMatchObject({ code: 'CONFLICT_DETECTED' });
      expect((refused as { message: string }).message).toContain(
        '"notes" is a file added to the zip by its other writer, but "notes/new.txt", in the workspace, needs it ' +
          'to be a folder',
      );
      expect((refused as { message: string }).message).toContain('Move or delete "notes/new.txt" in the workspace');
    });

    it('refuses a path both sides would write, as written twice', () => {
      const session = opened(ENTRIES);
      fs.writeFileSync(path.join(session.root, 'both.txt'), 'ours');
      const refused = outcome(() => checkMerge(session, [othersEntry('both.txt', 'theirs')]));
      expect(refused).toMatchObject({ code: 'CONFLICT_DETECTED' });
      expect((refused as { message: string }).message).toContain('"both.txt" would be written twice');
    });

    it("refuses the other writer's file on the way to a base entry the workspace kept", () => {
      const session = opened(ENTRIES);
      const refused = outcome(() => checkMerge(session, [othersEntry('docs', 'theirs, a file')]));
      expect(refused).toMatchObject({ code: 'CONFLICT_DETECTED' });
      expect((refused as { message: string }).message).toContain(
        '"docs/b.txt", in the workspace, needs it to be a folder',
      );
    });
  });
});
