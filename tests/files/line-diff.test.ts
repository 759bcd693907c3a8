import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unifiedDiff } from '../../src/files/line-diff.ts';
import { needs } from '../helpers/tools.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-diff-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** GNU diff -u's hunks for the same two texts (headers dropped: they carry file names and times). */
function gnuDiff(before: string, after: string, context: number): string {
  fs.writeFileSync(path.join(scratch, 'a'), before);
  fs.writeFileSync(path.join(scratch, 'b'), after);
  const out = Bun.spawnSync([
    'diff',
    `-U${context}`,
    path.join(scratch, 'a'),
    path.join(scratch, 'b'),
  ]).stdout.toString();
  return out.split('\n').slice(2).join('\n');
}

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => `${f(i)}\n`).join('');

describe('unifiedDiff', () => {
  it.skipIf(needs('diff').skip).each([
    [
      'one changed line in the middle',
      lines(20, (i) => `line ${i}`),
      lines(20, (i) => (i === 10 ? 'changed' : `line ${i}`)),
      3,
    ],
    [
      'changes far apart (two hunks)',
      lines(40, (i) => `l${i}`),
      lines(40, (i) => (i === 2 || i === 35 ? `x${i}` : `l${i}`)),
      3,
    ],
    [
      'changes close together (one hunk)',
      lines(40, (i) => `l${i}`),
      lines(40, (i) => (i === 10 || i === 15 ? `x${i}` : `l${i}`)),
      3,
    ],
    [
      'insertions and deletions',
      lines(10, (i) => `l${i}`),
      `${lines(3, (i) => `l${i}`)}new\n${lines(5, (i) => `l${i + 5}`)}`,
      1,
    ],
    ['a missing final newline added', 'a\nb', 'a\nb\n', 3],
    ['a missing final newline kept', 'a\nb\nc', 'a\nB\nc', 3],
    ['everything new', '', 'a\nb\n', 3],
    ['everything gone', 'a\nb\n', '', 0],
  ])(`matches GNU diff -u: %s${needs('diff').why}`, (_what, before, after, context) => {
    expect(unifiedDiff('f', before, after, context).text.split('\n').slice(2).join('\n')).toBe(
      gnuDiff(before, after, context),
    );
  });

  it('counts additions and deletions, and says nothing for equal texts', () => {
    expect(unifiedDiff('f', 'a\nb\n', 'a\nc\nd\n')).toMatchObject({ additions: 2, deletions: 1 });
    expect(unifiedDiff('f', 'same\n', 'same\n')).toStrictEqual({ text: '', additions: 0, deletions: 0 });
  });

  it('stays fast and correct for unrelated large texts (past the edit-distance cap)', () => {
    const a = lines(20_000, (i) => `a${i}`);
    const b = lines(20_000, (i) => `b${i}`);
    const diff = unifiedDiff('f', a, b);
    expect(diff).toMatchObject({ additions: 20_000, deletions: 20_000 });
  });
});
