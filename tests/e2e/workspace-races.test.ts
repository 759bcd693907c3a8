/**
 * A workspace folder swapped for a symlink to an outside folder while zipfs
 * works on it, by another process making atomic rename exchanges in a loop.
 * Checking a path and then using it again loses that race; zipfs reaches
 * every path through folder descriptors opened without following links
 * (src/files/beneath.ts), so no operation may read, write, replace or delete
 * anything outside, or put outside bytes into the zip. Before, in this loop,
 * write --append, mv --overwrite, delete, write, grep, ls, read and sync all
 * reached the outside folder.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { pythonRead } from '../helpers/zip-compare.ts';
import { needs } from '../helpers/tools.ts';

const python = needs('python3');

const SECRET = 'SECRET-OUTSIDE-BYTES';
const ROUNDS = 25;
const linux = process.platform === 'linux';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** What the outside folder holds: names and contents, to see that nothing reached it. */
function snapshot(dir: string): string {
  return fs
    .readdirSync(dir)
    .sort()
    .map(
      (name) =>
        `${name}=${fs.lstatSync(path.join(dir, name)).isFile() ? fs.readFileSync(path.join(dir, name), 'utf8') : '?'}`,
    )
    .join('\n');
}

describe('a workspace folder swapped for a link while zipfs works', () => {
  // Each synced zip is read whole by Python's zipfile to find the outside secret in it.
  it.skipIf(!linux || python.skip)(
    `never lets write, append, mv, delete, grep, ls, read or sync reach the outside folder (${ROUNDS} rounds under exchanges${linux ? '' : '; skipped: Linux only, renameat2'})${python.why}`,
    async () => {
      const zip = writeZip(
        box.dir,
        'race.zip',
        rawZip([
          { name: 'd/f.txt', data: 'inside' },
          { name: 'd/keep.txt', data: 'keep' },
        ]),
      );
      const root = box.run(['open', zip, '--json']).json.workspace_path;
      const outside = path.join(box.dir, 'outside');
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, 'f.txt'), SECRET);
      fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
      const original = snapshot(outside);
      fs.symlinkSync(outside, path.join(root, 'dlink'));

      const swapper = Bun.spawn(
        [
          process.execPath,
          path.join(import.meta.dir, '../helpers/swap-loop.ts'),
          path.join(root, 'd'),
          path.join(root, 'dlink'),
        ],
        { stdout: 'pipe' },
      );
      const escapes: Record<string, number> = {};
      const internal: Record<string, number> = {};
      const escaped = (op: string) => (escapes[op] = (escapes[op] ?? 0) + 1);
      const steps: [string, string[], (out: string) => boolean][] = [
        ['write', ['write', 'd/f.txt', 'inside'], () => false],
        ['write --append', ['write', 'd/f.txt', '+', '--append'], () => false],
        ['mv --overwrite', ['mv', 'd/keep.txt', 'd/f.txt', '--overwrite'], () => false],
        ['write (new file)', ['write', 'd/keep.txt', 'keep'], () => false],
        ['delete', ['delete', 'd/f.txt'], () => false],
        ['grep', ['grep', SECRET, '--json'], (out) => out.includes(SECRET)],
        ['ls', ['ls', '-r', '--json'], (out) => out.includes('secret.txt')],
        ['read', ['read', 'd/secret.txt'], (out) => out.includes(SECRET)],
        ['sync', ['sync', '--no-backup', '--json'], () => false],
      ];
      try {
        for (let round = 0; round < ROUNDS; round++) {
          for (const [op, args, leaked] of steps) {
            const result = box.run(args, { timeoutMs: 30_000 });
            if (result.code === 70) internal[op] = (internal[op] ?? 0) + 1; // a race is an ordinary condition: a documented code, never INTERNAL_ERROR
            if (leaked(result.stdout)) escaped(op);
            if (snapshot(outside) !== original) {
              escaped(op);
              fs.rmSync(outside, { recursive: true, force: true });
              fs.mkdirSync(outside);
              fs.writeFileSync(path.join(outside, 'f.txt'), SECRET);
              fs.writeFileSync(path.join(outside, 'secret.txt'), SECRET);
            }
            if (op === 'sync' && result.json?.synced) {
              const { contents } = pythonRead(zip);
              if (Object.values(contents).some((hex) => Buffer.from(hex, 'hex').toString().includes(SECRET)))
                escaped('sync');
            }
          }
        }
      } finally {
        swapper.kill('SIGTERM');
        await swapper.exited;
      }
      const exchanges = Number((await new Response(swapper.stdout).text()).trim());
      expect(exchanges).toBeGreaterThan(1000); // the race really ran
      expect({ escapes, internal }).toStrictEqual({ escapes: {}, internal: {} });
      expect(snapshot(outside)).toBe(original);
    },
    180_000,
  );
});
