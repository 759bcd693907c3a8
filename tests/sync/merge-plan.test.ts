/**
 * The merge planner in-process (merge-plan.ts): sides matched by path, a type
 * change as a deletion and an addition, the same change on both sides, and
 * clashes between the sides, without a zip or a workspace on disk.
 */
import { describe, expect, it } from 'bun:test';
import zlib from 'node:zlib';
import { ZipfsError } from '../../src/base/errors.ts';
import type { ItemType } from '../../src/rules/item-type.ts';
import type { EntryRecord } from '../../src/session/manifest.ts';
import { planMerge, type MergePlan } from '../../src/sync/merge-plan.ts';
import type { EntryState, WorkspaceDiff } from '../../src/sync/workspace-diff.ts';
import type { Observed } from '../../src/sync/observed.ts';
import {
  changeLines,
  changeLists,
  placeLeniently,
  zipSideChanges,
  type PlacedEntry,
} from '../../src/sync/zip-changes.ts';
import type { ZipEntry } from '../../src/zip/index.ts';

const crc = (data: string) => zlib.crc32(Buffer.from(data)) >>> 0;

/** A zip entry as the planner reads it: name, content facts, type. */
function zipEntry(index: number, name: string, data = ''): ZipEntry {
  return {
    index,
    name,
    isDirectory: name.endsWith('/'),
    isSymlink: false,
    crc32: crc(data),
    uncompressedSize: data.length,
    method: 8,
  } as ZipEntry;
}

function placed(index: number, name: string, path: string, type: ItemType, data = ''): PlacedEntry {
  return { entry: zipEntry(index, name, data), path, type };
}

function record(index: number, path: string, type: ItemType = 'file', data = ''): EntryRecord {
  return {
    kind: 'entry',
    index,
    name: type === 'dir' ? `${path}/` : path,
    path,
    type,
    size: data.length,
    compressed_size: data.length,
    crc32: crc(data),
    method: 8,
  } as EntryRecord;
}

/** A workspace side: each base entry's state, what is on disk (path -> content, or 'dir'), additions and renames. */
function workspace(options: {
  states: [number, EntryState][];
  disk?: Record<string, string>;
  added?: string[];
  renames?: [number, string][];
}): { diff: WorkspaceDiff; crcOf: (relative: string) => number | undefined } {
  const disk = options.disk ?? {};
  const observed = new Map<string, Observed>();
  for (const [path, content] of Object.entries(disk)) {
    observed.set(path, {
      kind: content === 'dir' ? 'dir' : 'file',
      size: content === 'dir' ? 0 : content.length,
      mtime_ms: 0,
      ctime_ms: 0,
      ino: 0,
      nlink: 1,
    });
  }
  const additions = (options.added ?? []).map((path) => ({ path, observed: observed.get(path)! }));
  const diff = {
    states: new Map(options.states),
    additions,
    renames: new Map(options.renames ?? []),
    observed,
  } as WorkspaceDiff;
  return {
    diff,
    crcOf: (relative) => (disk[relative] === undefined || disk[relative] === 'dir' ? undefined : crc(disk[relative]!)),
  };
}

function conflictOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect((error as ZipfsError).code).toBe('CONFLICT_DETECTED');
    return (error as ZipfsError).message;
  }
  throw new Error('no conflict');
}

const zipSteps = (plan: MergePlan) =>
  plan.steps.map((step) =>
    step.kind === 'zip' ? `zip ${step.path}${step.quiet ? ' (quiet)' : ''}` : `base ${step.record.path}`,
  );

describe('the zip side by path', () => {
  it(
    "takes a respelled entry as the same entry: quiet when the workspace left it, the workspace's when it changed " +
      'it',
    () => {
      const base = [record(0, 'a.txt', 'file', 'a'), record(1, 'd/b.txt', 'file', 'b')];
      const now = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'd\\b.txt', 'd/b.txt', 'file', 'b')];
      const left = workspace({
        states: [
          [0, 'modified'],
          [1, 'unchanged'],
        ],
        disk: { 'a.txt': 'ours', 'd/b.txt': 'b' },
      });
      const plan = planMerge({ base, now, ...left });
      expect(zipSteps(plan)).toStrictEqual(['base a.txt', 'zip d/b.txt (quiet)']);
      expect(plan.fromZip).toStrictEqual([]);
      expect(plan.zipDeleted).toStrictEqual([]);
      const changed = workspace({
        states: [
          [0, 'unchanged'],
          [1, 'modified'],
        ],
        disk: { 'a.txt': 'a', 'd/b.txt': 'ours' },
      });
      expect(zipSteps(planMerge({ base, now, ...changed }))).toStrictEqual(['base a.txt', 'base d/b.txt']);
    },
  );

  it('lists what status lists, by path: a type change is a deletion and an addition', () => {
    const base = [record(0, 'f', 'file', 'f'), record(1, 'g', 'dir'), record(2, 'g/h.txt', 'file', 'h')];
    const now = placeLeniently([zipEntry(0, 'f/'), zipEntry(1, 'f\\e.txt', 'e'), zipEntry(2, 'g', 'g')]);
    expect(changeLines(changeLists(zipSideChanges(base, now)))).toStrictEqual([
      'A f/',
      'A f/e.txt',
      'A g',
      'D f',
      'D g/',
      'D g/h.txt',
    ]);
    const plan = planMerge({
      base,
      now,
      ...workspace({
        states: [
          [0, 'unchanged'],
          [1, 'unchanged'],
          [2, 'unchanged'],
        ],
        disk: { f: 'f', g: 'dir', 'g/h.txt': 'h' },
      }),
    });
    expect(zipSteps(plan)).toStrictEqual(['zip f', 'zip f/e.txt', 'zip g']);
    expect(plan.zipDeleted.map((r) => r.path)).toStrictEqual(['f', 'g', 'g/h.txt']);
  });

  it('places leniently for status: a refused name or a second entry at a path keeps its raw name', () => {
    const now = placeLeniently([
      zipEntry(0, 'd/b.txt', 'b'),
      zipEntry(1, './d/b.txt', 'c'),
      zipEntry(2, '../out.txt', 'x'),
    ]);
    expect(now.map((p) => p.path)).toStrictEqual(['d/b.txt', './d/b.txt', '../out.txt']);
  });
});

describe('the same change on both sides', () => {
  const base = [record(0, 'a.txt', 'file', 'a'), record(1, 'keep.txt', 'file', 'kept bytes')];

  it('a rename both made is no conflict, counted once', () => {
    const now = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'kept.txt', 'kept.txt', 'file', 'kept bytes')];
    const side = workspace({
      states: [
        [0, 'unchanged'],
        [1, 'renamed'],
      ],
      disk: { 'a.txt': 'a', 'kept.txt': 'kept bytes' },
      renames: [[1, 'kept.txt']],
    });
    const plan = planMerge({ base, now, ...side });
    expect(zipSteps(plan)).toStrictEqual(['base a.txt', 'zip kept.txt']);
    expect(plan.same).toStrictEqual({ added: 0, modified: 0, deleted: 0, renamed: 1 });
    expect(plan.fromZip).toStrictEqual(['A kept.txt', 'D keep.txt']);
  });

  it(
    'a rename whose target the zip added while keeping the old name: the old one goes (the workspace moved it ' +
      'away)',
    () => {
      const now = [
        placed(0, 'a.txt', 'a.txt', 'file', 'a'),
        placed(1, 'keep.txt', 'keep.txt', 'file', 'kept bytes'),
        placed(2, 'kept.txt', 'kept.txt', 'file', 'kept bytes'),
      ];
      const side = workspace({
        states: [
          [0, 'unchanged'],
          [1, 'renamed'],
        ],
        disk: { 'a.txt': 'a', 'kept.txt': 'kept bytes' },
        renames: [[1, 'kept.txt']],
      });
      expect(zipSteps(planMerge({ base, now, ...side }))).toStrictEqual(['base a.txt', 'zip kept.txt']);
    },
  );

  it('a rename against a deletion, or to other bytes, is still a conflict', () => {
    const side = workspace({
      states: [
        [0, 'unchanged'],
        [1, 'renamed'],
      ],
      disk: { 'a.txt': 'a', 'kept.txt': 'kept bytes' },
      renames: [[1, 'kept.txt']],
    });
    expect(conflictOf(() => planMerge({ base, now: [placed(0, 'a.txt', 'a.txt', 'file', 'a')], ...side }))).toContain(
      '"keep.txt" (zip: deleted, workspace: renamed)',
    );
    const other = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'kept.txt', 'kept.txt', 'file', 'other bytes')];
    expect(conflictOf(() => planMerge({ base, now: other, ...side }))).toContain(
      '"kept.txt" (zip: added, workspace: renamed)',
    );
  });

  it('the same modification and the same deletion are counted once', () => {
    const now = [placed(0, 'a.txt', 'a.txt', 'file', 'both')];
    const plan = planMerge({
      base,
      now,
      ...workspace({
        states: [
          [0, 'modified'],
          [1, 'deleted'],
        ],
        disk: { 'a.txt': 'both' },
      }),
    });
    expect(plan.same).toStrictEqual({ added: 0, modified: 1, deleted: 1, renamed: 0 });
    expect(plan.fromZip).toStrictEqual(['M a.txt', 'D keep.txt']);
  });
});

describe('clashes between the sides', () => {
  const base = [record(0, 'a.txt', 'file', 'a')];
  const unchanged = { states: [[0, 'unchanged']] as [number, EntryState][] };

  it('a file the zip added where the workspace needs a folder, and the other way round', () => {
    const now = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'x', 'x', 'file', 'x')];
    const side = workspace({ ...unchanged, disk: { 'a.txt': 'a', x: 'dir', 'x/y.txt': 'y' }, added: ['x/y.txt'] });
    expect(conflictOf(() => planMerge({ base, now, ...side }))).toContain(
      '"x" (zip: a file, workspace: a folder (for "x/y.txt"))',
    );
    const folder = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'q/r.txt', 'q/r.txt', 'file', 'r')];
    const file = workspace({ ...unchanged, disk: { 'a.txt': 'a', q: 'q' }, added: ['q'] });
    expect(conflictOf(() => planMerge({ base, now: folder, ...file }))).toContain(
      '"q" (zip: a folder (for "q/r.txt"), workspace: a file)',
    );
  });

  it('two spellings of one path are one file in a folder that folds case', () => {
    const now = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'README.md', 'README.md', 'file', 'theirs')];
    const side = workspace({ ...unchanged, disk: { 'a.txt': 'a', 'readme.md': 'ours' }, added: ['readme.md'] });
    expect(planMerge({ base, now, ...side }).steps).toHaveLength(2);
    expect(conflictOf(() => planMerge({ base, now, ...side, caseInsensitive: true }))).toContain(
      '"README.md" (zip: a file, workspace: a file "readme.md")',
    );
  });

  it('names a clash once, however many entries lie below the folder', () => {
    const now = [placed(0, 'a.txt', 'a.txt', 'file', 'a'), placed(1, 'x', 'x', 'file', 'x')];
    const side = workspace({
      ...unchanged,
      disk: { 'a.txt': 'a', 'x/1': '1', 'x/2': '2', 'x/3': '3' },
      added: ['x/1', 'x/2', 'x/3'],
    });
    expect(conflictOf(() => planMerge({ base, now, ...side }))).toStartWith('An entry was changed both');
  });
});
