import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, sandbox } from '../helpers/cli.ts';

let box: ReturnType<typeof sandbox>;
let root: string;
beforeEach(() => ({ box, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

const grep = (...args: string[]) => box.run(['grep', ...args, '--json']).json;
const where = (result: { matches: { file: string; line_number: number }[] }) =>
  result.matches.map((m) => `${m.file}:${m.line_number}`);

describe('zipfs grep', () => {
  it('finds lines by regular expression, in file order', () => {
    const result = grep('^\\d,\\d+$');
    expect(where(result)).toStrictEqual(['data/input.csv:2', 'data/input.csv:3', 'data/output.csv:2']);
    expect(result).toMatchObject({ total_matches: 3, truncated: false, skipped_binary: 1 }); // logo.png is binary
    expect(result.matches[0].line_content).toBe('1,10');
  });

  it('filters by glob: names at any depth without "/", whole paths with it', () => {
    expect(where(grep('id', '--glob', '*.csv'))).toStrictEqual([
      'data/archive/2024.csv:1',
      'data/input.csv:1',
      'data/output.csv:1',
    ]);
    expect(where(grep('id', '--glob', 'data/*.csv'))).toStrictEqual(['data/input.csv:1', 'data/output.csv:1']);
    expect(where(grep('id', '--glob', 'data/**/*.csv'))).toStrictEqual([
      'data/archive/2024.csv:1',
      'data/input.csv:1',
      'data/output.csv:1',
    ]);
    expect(where(grep('id', 'data/archive'))).toStrictEqual(['data/archive/2024.csv:1']);
  });

  it('ignores case on request', () => {
    expect(grep('QUARTERLY').total_matches).toBe(0);
    expect(where(grep('QUARTERLY', '-i'))).toStrictEqual(['README.txt:1']);
  });

  it('stops at max_results with truncated, or counts all with count_all', () => {
    fs.writeFileSync(path.join(root, 'many.txt'), Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n'));
    const capped = grep('line', '--max-results', '10');
    expect(capped.matches).toHaveLength(10);
    expect([capped.truncated, capped.total_matches]).toStrictEqual([true, 11]);
    const counted = grep('line', '--max-results', '10', '--count-all');
    expect([counted.matches.length, counted.truncated, counted.total_matches]).toStrictEqual([10, true, 50]);
  });

  it('returns context lines, strips CR, and cuts very long lines with a marker', () => {
    fs.writeFileSync(path.join(root, 'crlf.txt'), 'one\r\ntwo\r\nthree\r\nfour\r\n');
    const result = grep('three', '-C', '1');
    expect(result.matches[0]).toStrictEqual({
      column: 1,
      file: 'crlf.txt',
      line_number: 3,
      line_content: 'three',
      context_before: ['two'],
      context_after: ['four'],
    });
    fs.writeFileSync(path.join(root, 'long.txt'), `${'x'.repeat(5000)}NEEDLE${'y'.repeat(5000)}`);
    const long = grep('NEEDLE').matches[0].line_content;
    expect(long.length).toBeLessThan(600);
    expect(long).toContain('NEEDLE');
    expect(long).toMatch(/^…\[\d+ chars\] x+NEEDLEy+ …\[\d+ more chars\]$/);
  });

  it('searches file names with --names-only', () => {
    expect(grep('\\.csv$', '--names-only').matches.map((m: { file: string }) => m.file)).toStrictEqual([
      'data/archive/2024.csv',
      'data/input.csv',
      'data/output.csv',
    ]);
  });

  it('prints grep-style lines for people', () => {
    const result = box.run(['grep', 'debug', '-C', '1']);
    expect(result.stdout).toBe(
      'data/config.json-1-{\ndata/config.json:2:  "debug": true,\ndata/config.json-3-  "region": "emea"\n',
    );
  });

  it("refuses an invalid regular expression with the engine's reason", () => {
    const result = box.run(['grep', '(unclosed', '--json']);
    expect(result.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(result.json.error.message).toMatch(/pattern.*\)/i);
  });

  it('never follows a link out of the workspace', () => {
    const outside = path.join(box.dir, 'secret.txt');
    fs.writeFileSync(outside, 'TOPSECRET');
    fs.symlinkSync(outside, path.join(root, 'link.txt'));
    fs.symlinkSync(box.dir, path.join(root, 'linkdir'));
    expect(grep('TOPSECRET').total_matches).toBe(0);
  });

  it('returns within its time budget on a catastrophic pattern, with what it found', () => {
    fs.writeFileSync(path.join(root, 'zz-evil.txt'), `${'a'.repeat(30_000)}!\n`.repeat(50));
    const started = performance.now();
    const result = box.run(['grep', '(a+)+$|debug', '--json'], { env: { ZIPFS_GREP_TIME_BUDGET_MS: '400' } }).json;
    expect(performance.now() - started).toBeLessThan(5000);
    expect(result.truncated).toBe(true);
    expect(result.note).toContain('time budget');
    expect(where(result)).toContain('data/config.json:2'); // found before the pattern got stuck
  });
});
