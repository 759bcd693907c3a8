import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { grepWorkspace, type GrepRequest } from '../../src/search/grep.ts';
import { CHUNK_BYTES } from '../../src/search/grep-sources.ts';
import { wholeFileGrep } from '../helpers/whole-file-grep.ts';

let root: string;
beforeAll(() => void (root = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-grep-stream-'))));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/**
 * About 3 chunks of lines, where the lines around each chunk boundary hold the
 * needle and multi-byte characters, so matches, context and characters all
 * straddle the pieces the worker reads.
 */
function text(encoding: 'utf-8' | 'utf-16', newline: string): string {
  const size = (line: string) => (encoding === 'utf-8' ? Buffer.byteLength(line) : 2 * line.length);
  const lines: string[] = [];
  for (let i = 0, bytes = 0; bytes < 3 * CHUNK_BYTES + 5000; i++) {
    const nearBoundary = Math.abs((bytes % CHUNK_BYTES) - CHUNK_BYTES / 2) > CHUNK_BYTES / 2 - 300;
    const line =
      nearBoundary || i % 997 === 0 ? `${i} é€😀 needle ${'n'.repeat(i % 40)} tail` : `${i} hay ${'h'.repeat(i % 60)}`;
    lines.push(line);
    bytes += size(line + newline);
  }
  return lines.join(newline);
}

const request = (more: Partial<GrepRequest>): GrepRequest => ({
  root,
  start: '',
  pattern: 'needle',
  ignoreCase: false,
  maxResults: 100_000,
  contextLines: 2,
  countAll: true,
  namesOnly: false,
  encoding: 'utf-8',
  binary: false,
  budgetMs: 60_000,
  ...more,
});

describe('grep of files larger than the read size', () => {
  it.each([
    ['UTF-8 with CRLF', 'crlf.txt', Buffer.from(`${text('utf-8', '\r\n')}\r\n`)],
    ['UTF-16LE with a BOM', 'utf16.txt', Buffer.from(`\ufeff${text('utf-16', '\n')}`, 'utf16le')],
    [
      'UTF-16BE with a BOM, no final newline',
      'utf16be.txt',
      Buffer.from(`\ufeff${text('utf-16', '\r\n')}`, 'utf16le').swap16(),
    ],
  ])('gives the whole-file results for %s, matches and context across the boundaries', async (_, name, bytes) => {
    expect(bytes.length).toBeGreaterThan(3 * CHUNK_BYTES);
    fs.writeFileSync(path.join(root, name), bytes);
    const whole = wholeFileGrep(name, bytes, {
      pattern: 'needle \\w*',
      flags: '',
      contextLines: 2,
      encoding: 'utf-8',
      binary: false,
    });
    const result = await grepWorkspace(request({ start: name, pattern: 'needle \\w*' }));
    expect(result.matches.length).toBeGreaterThan(10);
    expect(result).toStrictEqual({
      matches: whole.matches,
      total_matches: whole.matches.length,
      items: whole.matches.length,
      truncated: false,
      files_searched: 1,
      skipped_binary: 0,
    });
  });

  it('stops at max_results in a large file with the last match complete', async () => {
    const bytes = Buffer.from(text('utf-8', '\n'));
    fs.writeFileSync(path.join(root, 'capped.txt'), bytes);
    const whole = wholeFileGrep('capped.txt', bytes, {
      pattern: 'needle',
      flags: '',
      contextLines: 3,
      encoding: 'utf-8',
      binary: false,
    });
    const result = await grepWorkspace(
      request({ start: 'capped.txt', maxResults: 7, countAll: false, contextLines: 3 }),
    );
    expect(result.matches).toStrictEqual(whole.matches.slice(0, 7));
    expect([result.total_matches, result.truncated]).toStrictEqual([8, true]);
  });
});
