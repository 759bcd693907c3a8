/**
 * Which archive a session's zip path holds (issue 28, items 4 and 11).
 * - Another writer that keeps the zip's size and mtime (`cp` into the same
 *   file, then `touch -r`) is seen: status shows zip_changed, sync and diff
 *   refuse with CONFLICT_DETECTED, a lazy read refuses. The hash of the
 *   central directory used to be computed only when size or mtime differed.
 * - A reader of a zip reads its directory and its entries from one open file:
 *   inspect, open and lazy reads racing a rename of another valid zip over
 *   the path never report the archive as damaged (they read the headers from
 *   a second open of the path: "local header gives another CRC-32").
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { waitFor } from '../helpers/wait-for.ts';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { runZipfs, sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';

const MTIME = new Date('2025-03-01T10:00:00Z');
const app = (version: string): RawEntry[] => [
  { name: 'notes.txt', data: 'my notes\n', method: 0, mtime: MTIME },
  { name: 'version.txt', data: `${version}\n`, method: 0, mtime: MTIME },
];

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/**
 * Another program rewrites `zip` in place with `bytes` and puts its mtime back: `cp` into the same file, then `touch
 * -r`.
 */
function rewriteKeepingSizeAndTime(zip: string, bytes: Uint8Array): void {
  const reference = path.join(box.dir, 'reference.zip');
  const other = writeZip(box.dir, 'other.zip', bytes);
  expect(Bun.spawnSync(['cp', '-p', zip, reference]).exitCode).toBe(0); // the zip's own mtime, kept aside
  expect(Bun.spawnSync(['cp', other, zip]).exitCode).toBe(0);
  expect(Bun.spawnSync(['touch', '-r', reference, zip]).exitCode).toBe(0);
  const [now, was] = [fs.statSync(zip), fs.statSync(reference)];
  expect([now.size, now.mtimeMs]).toEqual([was.size, was.mtimeMs]);
}

describe("another writer that keeps the zip's size and mtime", () => {
  it.each([
    ['an eager session', []],
    ['a lazy session', ['--lazy']],
  ])('is seen in %s: status shows it, sync and diff refuse, nothing of it is reverted', (_kind, flags) => {
    const zip = writeZip(box.dir, 'app.zip', rawZip(app('v1')));
    expect(box.run(['open', zip, ...flags]).code).toBe(0);
    expect(box.run(['write', 'notes.txt', 'my changed notes\n']).code).toBe(0);
    const theirs = rawZip(app('v2'));
    rewriteKeepingSizeAndTime(zip, theirs);

    // Opening it again reuses the session, and says the zip moved on.
    const again = box.run(['open', zip, '--json']).json;
    expect(again.already_open).toBe(true);
    expect(again.zip_changed).toBe(true);
    expect(again.warnings).toEqual([expect.stringContaining("the zip changed since this session's base")]);
    expect(box.run(['status', '--json']).json.zip_changed).toEqual(['M version.txt']);
    const sync = box.run(['sync', '--json']);
    expect([sync.code, sync.json.error.code]).toEqual([ERROR_CODES.CONFLICT_DETECTED.exit, 'CONFLICT_DETECTED']);
    expect(sync.json.error.message).toContain('1 modified (version.txt)');
    expect(Buffer.from(fs.readFileSync(zip)).equals(Buffer.from(theirs))).toBe(true);
    expect(box.run(['diff', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
    // A merge keeps both sides' changes.
    expect(box.run(['sync', '--merge', '--json']).json.synced).toBe(true);
    expect(box.run(['read', 'version.txt']).stdout).toContain('v2');
    expect(box.run(['read', 'notes.txt']).stdout).toContain('my changed notes');
  });

  it("is seen by a lazy read, which refuses instead of serving the other archive's bytes", () => {
    const zip = writeZip(box.dir, 'app.zip', rawZip(app('v1')));
    expect(box.run(['open', zip, '--lazy']).code).toBe(0);
    rewriteKeepingSizeAndTime(zip, rawZip(app('v2')));
    for (const args of [
      ['read', 'version.txt'],
      ['grep', 'v'],
      ['extract', 'version.txt'],
    ]) {
      const result = box.run([...args, '--json']);
      expect({ args, code: result.code, error: result.json?.error?.code }).toEqual({
        args,
        code: ERROR_CODES.CONFLICT_DETECTED.exit,
        error: 'CONFLICT_DETECTED',
      });
    }
  });

  it('a copy of the same archive with another mtime is still no change', () => {
    const zip = writeZip(box.dir, 'app.zip', rawZip(app('v1')));
    expect(box.run(['open', zip, '--lazy']).code).toBe(0);
    const copy = path.join(box.dir, 'copy.zip');
    fs.copyFileSync(zip, copy);
    fs.renameSync(copy, zip);
    fs.utimesSync(zip, new Date('2030-01-01'), new Date('2030-01-01'));
    expect(box.run(['status', '--json']).json.zip_changed).toBeUndefined();
    expect(box.run(['read', 'version.txt']).stdout).toContain('v1');
  });
});

/**
 * Two valid archives of the same names at other offsets and CRC-32s: one read's directory would not fit the other's
 * headers.
 */
function twoArchives(): [Uint8Array, Uint8Array] {
  const entries = (fill: string, size: number): RawEntry[] =>
    Array.from({ length: 30 }, (_, i) => ({
      name: `dir/file-${i}.txt`,
      data: `${fill}${i}\n`.repeat(size),
      method: 8 as const,
    }));
  return [rawZip(entries('alpha', 40)), rawZip(entries('the other archive ', 70))];
}

/**
 * Runs `attempt` `rounds` times while another process renames one of two valid archives over the zip's path, again and
 * again.
 */
async function whileSwapping(
  zip: string,
  spare: string,
  rounds: number,
  attempt: (round: number) => void,
): Promise<void> {
  const swapper = Bun.spawn(['bun', path.join(import.meta.dir, '../helpers/swap-loop.ts'), zip, spare], {
    stdout: 'pipe',
  });
  try {
    // The loop is running once the zip's path holds the other file (an exchange swaps the inodes).
    const before = fs.statSync(zip).ino;
    await waitFor(() => fs.statSync(zip).ino !== before || swapper.exitCode !== null, { what: 'a first exchange' });
    expect(swapper.exitCode).toBeNull();
    for (let round = 0; round < rounds; round++) attempt(round);
  } finally {
    swapper.kill('SIGTERM');
    await swapper.exited; // it puts the zip back before the sandbox goes
  }
}

describe.skipIf(process.platform !== 'linux')(
  'readers racing a rename over the zip (Linux: renameat2 exchange)',
  () => {
    const ROUNDS = 40;

    it(`inspect and open never call a valid archive damaged (${ROUNDS} rounds each)`, async () => {
      const [a, b] = twoArchives();
      const zip = writeZip(box.dir, 'shared.zip', a);
      const spare = writeZip(box.dir, 'spare.zip', b);
      const falseDamage: string[] = [];
      await whileSwapping(zip, spare, ROUNDS, (round) => {
        const inspect = box.run(['inspect', zip, '--json']);
        if (inspect.code !== 0 || inspect.json.warnings.length > 0)
          falseDamage.push(`inspect ${round}: ${inspect.stdout.slice(0, 300)}`);
        const open = box.run(['open', zip, '--new', '--name', `s${round}`, '--json']);
        if (open.code !== 0) falseDamage.push(`open ${round}: ${open.stdout.slice(0, 300)}`);
        else expect(runZipfs(['close', `s${round}`, '--force'], { env: { ZIPFS_HOME: box.home } }).code).toBe(0);
      });
      expect(falseDamage).toEqual([]);
    });

    it(
      `a lazy read and grep give the base's bytes or CONFLICT_DETECTED, never the other archive's or ` +
        `"damaged" (${ROUNDS} rounds)`,
      async () => {
        const [a, b] = twoArchives();
        const zip = writeZip(box.dir, 'shared.zip', a);
        const spare = writeZip(box.dir, 'spare.zip', b);
        expect(box.run(['open', zip, '--lazy']).code).toBe(0);
        const wrong: string[] = [];
        await whileSwapping(zip, spare, ROUNDS, (round) => {
          const read = box.run(['read', `dir/file-${round % 30}.txt`, '--json']);
          if (
            read.code === 0
              ? !read.json.content.startsWith(`alpha${round % 30}\n`)
              : read.json?.error?.code !== 'CONFLICT_DETECTED'
          )
            wrong.push(`read ${round}: ${read.stdout.slice(0, 300)}`);
          // grep's worker reads the entries through the reader's descriptor, not a second open of the path.
          const grep = box.run(['grep', 'alpha|other', '--count-all', '--json']);
          if (
            grep.code === 0
              ? grep.json.total_matches !== 30 * 40 ||
                grep.json.matches.some((m: { line_content: string }) => !m.line_content.startsWith('alpha'))
              : grep.json?.error?.code !== 'CONFLICT_DETECTED'
          )
            wrong.push(`grep ${round}: ${grep.stdout.slice(0, 300)}`);
        });
        expect(wrong).toEqual([]);
      },
    );
  },
);
