import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/wait-for.ts';

const withUnzip = needs('unzip');

let box: ReturnType<typeof sandbox>;
let lock: string;
beforeEach(() => {
  box = sandbox();
  box.run(['open', writeZip(box.dir, 'reports.zip', reportsZip())]);
  lock = path.join(box.home, 'workspaces/reports/lock');
});
afterEach(() => box.cleanup());

const lockBy = (pid: number) =>
  fs.writeFileSync(lock, JSON.stringify({ pid, host: os.hostname(), command: 'sync', since: '2026-01-01T00:00:00Z' }));

describe('session locks', () => {
  it('gives LOCKED, naming the holder, while a live process holds the lock; reads still work', () => {
    const holder = Bun.spawn(['sleep', '30']);
    try {
      lockBy(holder.pid);
      for (const args of [['write', 'a.txt', 'x'], ['delete', 'README.txt'], ['sync'], ['close', '--force']]) {
        const result = box.run([...args, '--json'], { env: { ZIPFS_LOCK_WAIT_MS: '0' } });
        expect(result.code).toBe(ERROR_CODES.LOCKED.exit);
        expect(result.json.error.message).toContain(`process ${holder.pid}`);
      }
      expect(box.run(['read', 'README.txt']).code).toBe(0);
      expect(box.run(['status', '--json']).code).toBe(0);
    } finally {
      holder.kill();
    }
  });

  it('waits for another process holding the lock (ZIPFS_LOCK_WAIT_MS), then goes ahead, or says how long it waited', async () => {
    const holder = Bun.spawn(['sleep', '30']);
    try {
      lockBy(holder.pid);
      const refused = box.run(['write', 'a.txt', 'x', '--json'], { env: { ZIPFS_LOCK_WAIT_MS: '200' } });
      expect(refused.json.error.code).toBe('LOCKED');
      expect(refused.json.error.message).toContain('waited 200 ms for it (ZIPFS_LOCK_WAIT_MS)');
      // Released while a writer waits: the writer gets through.
      const env = { ...process.env, ZIPFS_HOME: box.home, ZIPFS_LOCK_WAIT_MS: '10000' };
      // Each try at the lock writes a draft `lock.PID-UUID` beside it (lock.ts); watched, so the lock goes only
      // once the writer has tried twice and found it held, and the test sees a wait, not a writer that came late.
      const tries: string[] = [];
      const watcher = fs.watch(path.dirname(lock), (_event, name) => {
        if (name?.startsWith('lock.')) tries.push(name);
      });
      try {
        const waiting = Bun.spawn([BINARY, 'write', 'b.txt', 'y', '--json'], { env, stdout: 'pipe' });
        const drafts = () => new Set(tries.filter((name) => name.startsWith(`lock.${waiting.pid}-`))).size;
        await waitFor(() => drafts() >= 2 || waiting.exitCode !== null, {
          what: 'the writer to try the held lock twice',
        });
        expect(waiting.exitCode).toBeNull();
        fs.rmSync(lock);
        expect(JSON.parse(await new Response(waiting.stdout).text())).toStrictEqual({ written: true, size_bytes: 1 });
      } finally {
        watcher.close();
      }
    } finally {
      holder.kill();
    }
  });

  it('takes over a lock left by a dead process', () => {
    const dead = Bun.spawnSync(['true']).pid;
    lockBy(dead);
    expect(box.run(['write', 'a.txt', 'x', '--json']).json.written).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it.skipIf(withUnzip.skip)(
    `lets concurrent processes through one at a time: with no wait each succeeds or gets LOCKED, nothing is corrupted${withUnzip.why}`,
    async () => {
      const env = { ...process.env, ZIPFS_HOME: box.home, ZIPFS_LOCK_WAIT_MS: '0' };
      const writers = Array.from({ length: 8 }, (_, i) =>
        Bun.spawn([BINARY, 'write', `f${i}.txt`, `content ${i}`, '--json'], { env, stdout: 'pipe' }),
      );
      const syncer = Bun.spawn([BINARY, 'sync', '--json'], { env, stdout: 'pipe' });
      const results = await Promise.all(
        [...writers, syncer].map(async (p) => JSON.parse(await new Response(p.stdout).text())),
      );
      for (const result of results) expect(result.error === undefined || result.error.code === 'LOCKED').toBe(true);
      expect(results.some((r) => r.error === undefined)).toBe(true);
      expect(fs.existsSync(lock)).toBe(false);
      // What did get written is whole, and a final sync leaves everything consistent.
      results.slice(0, 8).forEach((r, i) => {
        if (!r.error)
          expect(fs.readFileSync(path.join(box.home, `workspaces/reports/contents/f${i}.txt`), 'utf8')).toBe(
            `content ${i}`,
          );
      });
      expect(box.run(['sync', '--json']).json.synced).toBe(true);
      expect(box.run(['status', '--json']).json.added).toStrictEqual([]);
      expect(Bun.spawnSync(['unzip', '-tq', path.join(box.dir, 'reports.zip')]).exitCode).toBe(0);
    },
  );
});

describe('parallel mutations', () => {
  it('queue: 9 processes started at once all succeed with the default wait', async () => {
    const env = { ...process.env, ZIPFS_HOME: box.home };
    const writers = Array.from({ length: 8 }, (_, i) =>
      Bun.spawn([BINARY, 'write', `p${i}.txt`, `content ${i}`, '--json'], { env, stdout: 'pipe' }),
    );
    const syncer = Bun.spawn([BINARY, 'sync', '--json'], { env, stdout: 'pipe' });
    const results = await Promise.all(
      [...writers, syncer].map(async (p) => JSON.parse(await new Response(p.stdout).text())),
    );
    expect(results.filter((r) => r.error)).toStrictEqual([]);
    expect(fs.existsSync(lock)).toBe(false);
  });
});
