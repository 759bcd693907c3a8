/**
 * The code's shape (issue 29, point 6): every line of src/, tests/ and scripts/ at most 120 characters, and every
 * file of src/ at most 300 lines, so each file does one job and reads without scrolling sideways.
 */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { longFile, longLines, sourceFiles } from './helpers/code-shape.ts';

const ROOT = path.join(import.meta.dir, '..');

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

describe('the shape of the code', () => {
  it('has no line over 120 characters in src/, tests/ and scripts/', () => {
    const files = ['src', 'tests', 'scripts'].flatMap((dir) => sourceFiles(ROOT, dir));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((file) => longLines(file, read(file)))).toStrictEqual([]);
  });

  it('imports node:crypto only in the MCP server: a CLI command loads it when it needs it (AES)', () => {
    // Loading it (and the streams under it) cost every command milliseconds; it came back once with the S3 signer.
    const importing = sourceFiles(ROOT, 'src').filter((file) =>
      /^import (?!type )[^;]*from 'node:crypto'/m.test(read(file)),
    );
    expect(importing.filter((file) => !file.startsWith('src/mcp/'))).toStrictEqual([]);
  });

  it('has no file of src/ over 300 lines', () => {
    const files = sourceFiles(ROOT, 'src');
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap((file) => longFile(file, read(file)))).toStrictEqual([]);
  });

  it('names each long line by file and line, counting characters, not bytes', () => {
    const text = `short\n${'x'.repeat(121)}\n${'é'.repeat(120)}\n${'y'.repeat(120)}\n// ${'z'.repeat(200)}\n`;
    expect(longLines('src/made-up.ts', text)).toStrictEqual([
      'src/made-up.ts:2 (121 characters)',
      'src/made-up.ts:5 (203 characters)',
    ]);
  });

  it('names a file over 300 lines, and lets one of exactly 300 pass', () => {
    expect(longFile('src/made-up.ts', 'line\n'.repeat(301))).toStrictEqual(['src/made-up.ts (301 lines)']);
    expect(longFile('src/made-up.ts', 'line\n'.repeat(300))).toStrictEqual([]);
    expect(longFile('src/made-up.ts', `${'line\n'.repeat(299)}no final newline`)).toStrictEqual([]);
  });
});
