/**
 * The regex engine giving up (issue 28, item 12). Bun's engine answers "no
 * match" when a pattern backtracks past its limit: `(x+x+)+y` on a line of 40
 * `x` then `zxxy` (grep -E finds `xxy`). That is said, never taken as absent:
 * grep gives truncated and a note naming the backtracking (and exits 14 when it
 * found nothing, not 1), edit --regex gives LIMIT_EXCEEDED, not EDIT_MISMATCH,
 * over the CLI and MCP alike, lazily opened too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

const PATTERN = '(x+x+)+y';
const GIVES_UP = `first line\n${'x'.repeat(40)}zxxy\n`;

// The engine's give-up (about 0.7 s, twice to confirm it: regex-give-up.ts) is what is tested, not
// the time budget: on a loaded machine a few give-ups could reach the 5 s default and be said as that.
const NO_BUDGET = { ZIPFS_GREP_TIME_BUDGET_MS: '120000' };

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  const made = sandbox();
  box = { ...made, run: (args, options = {}) => made.run(args, { ...options, env: { ...NO_BUDGET, ...options.env } }) };
  zip = writeZip(
    box.dir,
    'app.zip',
    rawZip([
      { name: 'give-up.txt', data: GIVES_UP },
      { name: 'plain.txt', data: 'nothing here\n' },
    ]),
  );
});
afterEach(() => box.cleanup());

describe('the regex engine giving up', () => {
  for (const lazy of [false, true]) {
    it(`grep says so: truncated, a note naming the line and the backtracking, exit 14 not 1${lazy ? ' (lazy session, entry read from the zip)' : ''}`, () => {
      box.run(['open', zip, ...(lazy ? ['--lazy'] : [])]);
      const json = box.run(['grep', PATTERN, '--json']);
      expect(json.json).toMatchObject({ total_matches: 0, truncated: true });
      expect(json.json.note).toContain('gave up');
      expect(json.json.note).toContain('"give-up.txt" line 2');
      expect(json.json.note).toContain('backtracks catastrophically');
      expect(json.code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
      const text = box.run(['grep', PATTERN]);
      expect(text.code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
      expect(text.stderr).toContain('gave up');
      // A real "no match" stays one: exit 1, not truncated, no note.
      const absent = box.run(['grep', 'x{2,}q', '--json']);
      expect([absent.code, absent.json.truncated, absent.json.note]).toStrictEqual([1, false, undefined]);
    }, 30_000);
  }

  it('grep keeps what it found elsewhere, and -q answers by exit status', () => {
    box.run(['open', zip]);
    const found = box.run(['grep', `${PATTERN}|nothing`, '--json']);
    expect(found.json.matches.map((m: { file: string }) => m.file)).toStrictEqual(['plain.txt']);
    expect(found.json.truncated).toBe(true);
    expect(found.code).toBe(0);
    expect(box.run(['grep', '-q', PATTERN, 'give-up.txt']).code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
  }, 30_000);

  it('grep --binary and --names-only say so too', () => {
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(
      path.join(root, 'blob.bin'),
      Buffer.concat([Buffer.from([0, 1, 2, 0]), Buffer.from(`${'x'.repeat(40)}zxxy`)]),
    );
    const binary = box.run(['grep', PATTERN, 'blob.bin', '--binary', '--json']).json;
    expect(binary).toMatchObject({ total_matches: 0, truncated: true, note: expect.stringContaining('"blob.bin"') });
    fs.writeFileSync(path.join(root, `${'x'.repeat(40)}zxxy`), '');
    const names = box.run(['grep', PATTERN, '--names-only', '--json']).json;
    expect(names).toMatchObject({ total_matches: 0, truncated: true, note: expect.stringContaining('gave up') });
  }, 30_000);

  it('edit --regex is LIMIT_EXCEEDED, not EDIT_MISMATCH, and writes nothing', () => {
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    const edit = box.run(['edit', 'give-up.txt', '--regex', '--old', PATTERN, '--new', 'Y', '--json']);
    expect(edit.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(edit.json.error.message).toContain('gave up');
    expect(edit.code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
    expect(fs.readFileSync(path.join(root, 'give-up.txt'), 'utf8')).toBe(GIVES_UP);
    // A pattern that truly matches nothing is still EDIT_MISMATCH.
    expect(box.run(['edit', 'give-up.txt', '--regex', '--old', 'x{2,}q', '--new', 'Y', '--json']).json.error.code).toBe(
      'EDIT_MISMATCH',
    );
  }, 30_000);

  it('over MCP: grep is truncated with the note, edit is LIMIT_EXCEEDED', async () => {
    const mcp = await connect(box.home, NO_BUDGET);
    try {
      await call(mcp.client, 'zipfs_open', { path: zip });
      const grep = await call(mcp.client, 'zipfs_grep', { pattern: PATTERN });
      expect(grep.data).toMatchObject({
        total_matches: 0,
        truncated: true,
        note: expect.stringContaining('backtracks catastrophically'),
      });
      const edit = await call(mcp.client, 'zipfs_edit', {
        path: 'give-up.txt',
        edits: [{ old_text: PATTERN, new_text: 'Y', regex: true }],
      });
      expect(edit.data.error.code).toBe('LIMIT_EXCEEDED');
    } finally {
      await mcp.close();
    }
  }, 30_000);
});
