/**
 * What sync leaves beside the user's zip: a backup whose name no archive
 * tool picks up (or none, when asked), and no temporaries, whether the sync
 * is interrupted by a signal or killed outright and cleaned up after.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { reportsSandbox, type sandbox } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { sha } from '../helpers/zip-compare.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => ({ box, zip, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

const beside = () =>
  fs
    .readdirSync(box.dir)
    .filter((n) => n !== 'home')
    .sort();

describe('the backup', () => {
  it('is <zip>.bak, holding the previous archive, so globs like *.zip, *.whl or lib/*.jar never pick it up', () => {
    const previous = sha(zip);
    box.run(['write', 'notes.txt', 'one']);
    expect(box.run(['sync', '--json']).json.backup_path).toBe(`${zip}.bak`);
    expect(beside()).toStrictEqual(['reports.zip', 'reports.zip.bak']);
    expect(sha(`${zip}.bak`)).toBe(previous);
  });

  it('keeps history: the older .bak moves to the next number, the oldest go past ZIPFS_KEEP_BACKUPS', () => {
    const versions = [sha(zip)];
    const sync = (env: Record<string, string> = {}) => {
      box.run(['write', 'notes.txt', `v${versions.length}`]);
      const answer = box.run(['sync', '--json'], { env }).json;
      versions.push(sha(zip));
      return answer;
    };
    // The first sync keeps the zip as it was at open; the second moves that to .1.bak, never over it.
    expect(sync()).toMatchObject({ backup_path: `${zip}.bak` });
    expect(sync()).toMatchObject({ backup_path: `${zip}.bak`, older_backup_path: `${zip}.1.bak` });
    expect(beside()).toStrictEqual(['reports.zip', 'reports.zip.1.bak', 'reports.zip.bak']);
    expect([sha(`${zip}.1.bak`), sha(`${zip}.bak`)]).toStrictEqual(versions.slice(0, 2));
    // With two kept, the third numbered one removes the oldest, and says so.
    const keep2 = { ZIPFS_KEEP_BACKUPS: '2' };
    expect(sync(keep2)).toMatchObject({ older_backup_path: `${zip}.2.bak` });
    const third = box.run(['write', 'notes.txt', 'v4']) && box.run(['sync'], { env: keep2 });
    versions.push(sha(zip));
    expect(third.stdout).toContain(`Previous archive kept as ${zip}.bak, the one before it as ${zip}.3.bak.`);
    expect(beside()).toStrictEqual(['reports.zip', 'reports.zip.2.bak', 'reports.zip.3.bak', 'reports.zip.bak']);
    expect([sha(`${zip}.2.bak`), sha(`${zip}.3.bak`), sha(`${zip}.bak`)]).toStrictEqual(versions.slice(1, 4));
    // 0 keeps .bak only: every numbered one goes, the one this sync made too.
    expect(sync({ ZIPFS_KEEP_BACKUPS: '0' })).toMatchObject({
      backup_path: `${zip}.bak`,
      older_backup_path: `${zip}.4.bak`,
    });
    expect(beside()).toStrictEqual(['reports.zip', 'reports.zip.bak']);
    expect(sha(`${zip}.bak`)).toBe(versions.at(-2)!);
    // A folder named like a numbered backup is someone's own: never removed, and numbers go past it.
    fs.mkdirSync(`${zip}.7.bak`);
    expect(sync({ ZIPFS_KEEP_BACKUPS: '0' })).toMatchObject({ older_backup_path: `${zip}.8.bak` });
    expect(beside()).toStrictEqual(['reports.zip', 'reports.zip.7.bak', 'reports.zip.bak']);
  });

  it('is not kept with --no-backup (CLI), backup=false (MCP), or close --sync --no-backup', async () => {
    box.run(['write', 'notes.txt', 'one']);
    expect(box.run(['sync', '--no-backup', '--json']).json).toMatchObject({
      synced: true,
      backup_path: null,
      files_added: 1,
    });
    expect(beside()).toStrictEqual(['reports.zip']);

    const mcp = await connect(box.home);
    try {
      await call(mcp.client, 'zipfs_write', { path: 'notes.txt', content: 'two' });
      expect((await call(mcp.client, 'zipfs_sync', { backup: false })).data).toMatchObject({
        synced: true,
        backup_path: null,
      });
    } finally {
      await mcp.close();
    }
    expect(beside()).toStrictEqual(['reports.zip']);
    box.run(['write', 'notes.txt', 'three']);
    expect(box.run(['close', '--sync', '--no-backup', '--json']).json.synced).toBe(true);
    expect(beside()).toStrictEqual(['reports.zip']);
  });
});

describe('an interrupted sync', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)(
    'removes its temporary archive on %s, and leaves the zip, the lock and the edits as they were',
    async (signal, code) => {
      // A large addition streams through the deflater for a second or more, yielding as it goes.
      fs.writeFileSync(path.join(root, 'big.bin'), crypto.randomBytes(96 << 20));
      const before = sha(zip);
      const child = Bun.spawn([BINARY, 'sync'], {
        env: { ...process.env, ZIPFS_HOME: box.home },
        stdout: 'ignore',
        stderr: 'pipe',
      });
      await waitFor(() => beside().some((n) => n.endsWith('.tmp')), {
        what: "the sync's temporary",
        timeoutMs: 20_000,
      });
      child.kill(signal);
      expect(await child.exited).toBe(code);
      expect(beside()).toStrictEqual(['reports.zip']);
      expect(sha(zip)).toBe(before);
      expect(box.run(['status', '--json']).json.added).toStrictEqual(['big.bin']);
      expect(box.run(['write', 'after.txt', 'x', '--json']).json.written).toBe(true); // the lock was released
    },
    60_000,
  );

  it('leaves temporaries of killed syncs that close and prune remove, but never those of a live one', () => {
    const dead = ['.reports.zip.zipfs-999999-abc.tmp', 'reports.zip.bak.zipfs-999999.tmp'];
    const live = `.reports.zip.zipfs-${process.pid}-live.tmp`;
    for (const name of [...dead, live]) fs.writeFileSync(path.join(box.dir, name), 'partial');
    expect(box.run(['close', '--json']).json.closed).toBe(true);
    expect(beside()).toStrictEqual([live, 'reports.zip'].sort());

    box.run(['open', zip]);
    for (const name of dead) fs.writeFileSync(path.join(box.dir, name), 'partial');
    // The session, and each temporary listed by its path (killed-sync-leftovers.test.ts).
    expect(
      box
        .run(['prune', '--all', '--json'])
        .json.pruned.map((p: { name: string }) => p.name)
        .sort(),
    ).toStrictEqual([...dead.map((name) => path.join(fs.realpathSync(box.dir), name)), 'reports'].sort());
    expect(beside()).toStrictEqual([live, 'reports.zip'].sort());
    expect(fs.readFileSync(zip).equals(Buffer.from(reportsZip()))).toBe(true);
  });
});
