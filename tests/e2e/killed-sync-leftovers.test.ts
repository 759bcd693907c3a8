/**
 * What a sync killed outright leaves beside the zip (issue 28, items 14 and
 * 17): its lock `.app.zip.zipfs-lock` and its temporary
 * `.app.zip.zipfs-PID-ID.tmp`. status lists them (and says so on stderr), the
 * next sync removes them and says so (`leftovers_removed`, a note), prune
 * removes the lock as well as the temporary (a dry run lists both). A lock
 * whose pid now belongs to an unrelated process (it started at another time
 * than the one the lock records) is stale, not LOCKED for ever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processStart } from '../../src/session/owner.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let lock: string;
let temporary: string;
let deadPid: number;
beforeEach(async () => {
  box = sandbox();
  zip = writeZip(box.dir, 'app.zip', rawZip([{ name: 'a.txt', data: 'a\n' }]));
  box.run(['open', zip]);
  const gone = Bun.spawn(['true']);
  await gone.exited;
  deadPid = gone.pid;
  lock = path.join(box.dir, '.app.zip.zipfs-lock');
  temporary = path.join(box.dir, `.app.zip.zipfs-${deadPid}-0b6f.tmp`);
});
afterEach(() => box.cleanup());

/** What kill -9 of a sync leaves: its lock and a half-written archive beside the zip. */
function killedSyncLeftovers(): void {
  fs.writeFileSync(
    lock,
    JSON.stringify({ pid: deadPid, host: os.hostname(), command: 'sync', since: '2026-01-01T00:00:00Z' }),
  );
  fs.writeFileSync(temporary, Buffer.alloc(70_000));
}
const described = () => [
  `the lock ${lock} (process ${deadPid}, gone)`,
  `the temporary ${temporary} (process ${deadPid}, gone)`,
];

describe("a killed sync's leftovers", () => {
  it('are listed by status, and removed by the next sync, which says so', () => {
    killedSyncLeftovers();
    expect(box.run(['status', '--json']).json.leftovers).toStrictEqual(described());
    expect(box.run(['status']).stderr).toContain(
      `zipfs: a killed sync left beside the zip: ${described().join('; ')}; the next sync (or zipfs prune) removes them.`,
    );
    box.run(['write', 'b.txt', 'b']);
    const synced = box.run(['sync', '--json']).json;
    expect([synced.synced, synced.leftovers_removed]).toStrictEqual([true, described()]);
    expect([fs.existsSync(lock), fs.existsSync(temporary)]).toStrictEqual([false, false]);
    expect(box.run(['status', '--json']).json.leftovers).toBeUndefined();

    killedSyncLeftovers();
    const plain = box.run(['sync']);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toContain(`zipfs: removed what a killed sync left beside the zip: ${described().join('; ')}.`);
  });

  it('are removed by prune, the lock too; a dry run lists them and removes nothing', () => {
    killedSyncLeftovers();
    const expected = [
      { id: '', name: lock, reason: `lock of a killed sync (process ${deadPid} is gone)` },
      { id: '', name: temporary, reason: `temporary of a killed sync (process ${deadPid} is gone)` },
    ];
    const dry = box.run(['prune', '--orphaned', '--dry-run', '--json']).json;
    expect([dry.pruned, dry.dry_run]).toStrictEqual([expected, true]);
    expect(dry.freed_bytes).toBeGreaterThanOrEqual(70_000);
    expect([fs.existsSync(lock), fs.existsSync(temporary)]).toStrictEqual([true, true]);
    expect(box.run(['prune', '--orphaned', '--json']).json.pruned).toStrictEqual(expected);
    expect([fs.existsSync(lock), fs.existsSync(temporary)]).toStrictEqual([false, false]);
  });
});

describe('a sync killed with kill -9', () => {
  it('leaves its lock and temporary, which status lists and the next sync removes, saying so', async () => {
    // 48 MB that do not compress: the sync writes for long enough to be caught in the act.
    const big = writeZip(box.dir, 'big.zip', rawZip([{ name: 'noise.bin', data: randomBytes(48 << 20) }]));
    box.run(['open', big, '--name', 'big']);
    box.run(['write', '-s', 'big', 'new.txt', 'new']);
    const env = { ...process.env, NO_COLOR: '1', ZIPFS_HOME: box.home, ZIPFS_SESSION: undefined };
    const bigLock = path.join(box.dir, '.big.zip.zipfs-lock');
    const temporaries = () =>
      fs.readdirSync(box.dir).filter((n) => n.startsWith('.big.zip.zipfs-') && n.endsWith('.tmp'));
    const sync = Bun.spawn([BINARY, 'sync', 'big'], { env, stdout: 'ignore', stderr: 'ignore' });
    // Killed as soon as its temporary is there (bounded: a sync that finished first fails the test below).
    await waitFor(() => temporaries().length > 0 || sync.exitCode !== null, {
      what: "the sync's temporary",
      timeoutMs: 30_000,
      intervalMs: 1,
    });
    sync.kill('SIGKILL');
    await sync.exited;
    expect(sync.signalCode).toBe('SIGKILL');
    const [temporary] = temporaries();
    expect([fs.existsSync(bigLock), temporary !== undefined]).toStrictEqual([true, true]);
    const listed = [
      `the lock ${bigLock} (process ${sync.pid}, gone)`,
      `the temporary ${path.join(box.dir, temporary!)} (process ${sync.pid}, gone)`,
    ];
    expect(box.run(['status', 'big', '--json']).json.leftovers).toStrictEqual(listed);
    const synced = box.run(['sync', 'big', '--json']).json;
    expect([synced.synced, synced.files_added, synced.leftovers_removed]).toStrictEqual([true, 1, listed]);
    expect([fs.existsSync(bigLock), temporaries()]).toStrictEqual([false, []]);
  });
});

describe('a lock whose pid was reused by an unrelated process', () => {
  const withProc = fs.existsSync('/proc/self/stat');
  it.skipIf(!withProc)(
    `is stale (its recorded start time is not the process's), for the zip lock and the session lock alike${withProc ? '' : ' (skipped: needs /proc/PID/stat)'}`,
    () => {
      const unrelated = Bun.spawn(['sleep', '60']);
      try {
        const start = processStart(unrelated.pid)!;
        const reused = (file: string) =>
          fs.writeFileSync(
            file,
            JSON.stringify({
              pid: unrelated.pid,
              host: os.hostname(),
              command: 'sync',
              since: '2026-01-01T00:00:00Z',
              start: start - 1,
            }),
          );
        reused(lock);
        reused(path.join(box.home, 'workspaces/app/lock'));
        expect(box.run(['write', 'b.txt', 'b', '--json'], { env: { ZIPFS_LOCK_WAIT_MS: '0' } }).json).toStrictEqual({
          written: true,
          size_bytes: 1,
        });
        const synced = box.run(['sync', '--json'], { env: { ZIPFS_LOCK_WAIT_MS: '0' } }).json;
        expect([synced.synced, synced.leftovers_removed]).toStrictEqual([
          true,
          [`the lock ${lock} (process ${unrelated.pid}, gone)`],
        ]);
        // The same pid with its own start time is the holder itself: LOCKED, as before.
        fs.writeFileSync(
          lock,
          JSON.stringify({
            pid: unrelated.pid,
            host: os.hostname(),
            command: 'sync',
            since: '2026-01-01T00:00:00Z',
            start,
          }),
        );
        box.run(['write', 'c.txt', 'c']);
        expect(box.run(['sync', '--json'], { env: { ZIPFS_LOCK_WAIT_MS: '0' } }).json.error.code).toBe('LOCKED');
      } finally {
        unrelated.kill();
      }
    },
  );
});
