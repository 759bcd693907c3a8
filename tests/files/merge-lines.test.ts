/** The three-way line merge (files/merge-lines.ts), against what `git merge-file` does with the same three texts. */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { markerLine, mergeLines } from '../../src/files/merge-lines.ts';

const base = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';

/** git merge-file's answer for the same texts (diff3 style), when git is there. */
function gitMerge(ours: string, old: string, theirs: string): { text: string; conflicts: number } | undefined {
  if (!Bun.which('git')) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-lines-'));
  try {
    const files = ['ours', 'base', 'theirs'].map((name) => path.join(dir, name));
    [ours, old, theirs].forEach((text, i) => fs.writeFileSync(files[i]!, text));
    const run = Bun.spawnSync([
      'git',
      'merge-file',
      '--diff3',
      '-p',
      '-L',
      'workspace',
      '-L',
      'base',
      '-L',
      'zip',
      ...files,
    ]);
    return { text: run.stdout.toString(), conflicts: run.exitCode };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('mergeLines', () => {
  it('takes changes to different lines from both sides', () => {
    const ours = base.replace('two\n', 'TWO\n');
    const theirs = base.replace('six\n', 'SIX\n');
    const merged = mergeLines(base, ours, theirs);
    expect(merged).toStrictEqual({ text: base.replace('two', 'TWO').replace('six', 'SIX'), conflicts: [] });
    const git = gitMerge(ours, base, theirs);
    if (git) expect(git).toEqual({ text: merged.text, conflicts: 0 });
  });

  it('takes one identical change once, and additions at both ends', () => {
    const ours = `zero\n${base.replace('four\n', 'FOUR\n')}`;
    const theirs = `${base.replace('four\n', 'FOUR\n')}eight\n`;
    expect(mergeLines(base, ours, theirs)).toStrictEqual({
      text: `zero\n${base.replace('four', 'FOUR')}eight\n`,
      conflicts: [],
    });
  });

  it('marks changes to the same lines as a conflict, with the base between, as git does', () => {
    const ours = base.replace('four\n', 'ours four\n');
    const theirs = base.replace('four\n', 'zip four\n');
    const merged = mergeLines(base, ours, theirs);
    expect(merged.text).toBe(
      'one\ntwo\nthree\n<<<<<<< workspace\nours four\n||||||| base\nfour\n=======\nzip four\n>>>>>>> zip\n' +
        'five\nsix\nseven\n',
    );
    expect(merged.conflicts).toStrictEqual([{ start: 4, end: 10 }]);
    expect(markerLine(merged.text)).toBe(4);
    expect(markerLine(base)).toBeUndefined();
    const git = gitMerge(ours, base, theirs);
    if (git) expect(git).toEqual({ text: merged.text, conflicts: 1 });
  });

  it('keeps CRLF lines and a last line without a newline where nothing conflicts', () => {
    const crlf = 'a\r\nb\r\nc\r\nd';
    expect(mergeLines(crlf, 'A\r\nb\r\nc\r\nd', 'a\r\nb\r\nc\r\nD').text).toBe('A\r\nb\r\nc\r\nD');
  });

  it('merges a deletion on one side with a change far from it on the other', () => {
    const ours = base.replace('two\n', '');
    const theirs = base.replace('seven\n', 'SEVEN\n');
    expect(mergeLines(base, ours, theirs).text).toBe(base.replace('two\n', '').replace('seven', 'SEVEN'));
  });
});
