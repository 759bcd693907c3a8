import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, sandbox } from '../helpers/cli.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => ({ box, zip } = reportsSandbox(false)));
afterEach(() => box.cleanup());

const workspaces = () => fs.readdirSync(path.join(box.home, 'workspaces')).sort();
/** Makes a session look unused since `when` (last_accessed_at is the manifest's mtime). */
const age = (name: string, when: Date) =>
  fs.utimesSync(path.join(box.home, 'workspaces', name, 'manifest.jsonl'), when, when);

describe('zipfs prune', () => {
  it('needs all or stale, and a valid duration', () => {
    expect(box.run(['prune', '--json']).json.error.message).toContain('--stale 7d');
    for (const bad of ['7', 'd', '7y', 'soon'])
      expect(box.run(['prune', '--stale', bad, '--json']).json.error.code).toBe('INVALID_INPUT');
  });

  it('removes sessions unused for longer than the duration, and reports freed bytes', () => {
    for (const name of ['old', 'older', 'fresh']) box.run(['open', zip, '--name', name]);
    age('old', new Date(Date.now() - 3 * 86_400_000 - 1000));
    age('older', new Date(Date.now() - 20 * 86_400_000));
    const result = box.run(['prune', '--stale', '2d', '--json']).json;
    expect(result.pruned).toStrictEqual([
      { id: expect.any(String), name: 'old', reason: 'stale (3d)' },
      { id: expect.any(String), name: 'older', reason: 'stale (20d)' },
    ]);
    expect(result.freed_bytes).toBeGreaterThan(3000);
    expect(workspaces()).toStrictEqual(['fresh']);
    for (const [duration, expected] of [
      ['30m', 'fresh'],
      ['24h', 'fresh'],
      ['2w', 'fresh'],
    ] as const) {
      expect(box.run(['prune', '--stale', duration, '--json']).json.pruned).toStrictEqual([]);
      expect(workspaces()).toStrictEqual([expected]);
    }
  });

  it('changes nothing with --dry-run, and removes everything with --all', () => {
    box.run(['open', zip, '--name', 'a']);
    box.run(['open', zip, '--name', 'b']);
    expect(
      box.run(['prune', '--all', '--dry-run', '--json']).json.pruned.map((p: { name: string }) => p.name),
    ).toStrictEqual(['a', 'b']);
    expect(workspaces()).toStrictEqual(['a', 'b']);
    expect(box.run(['prune', '--all']).stdout).toContain('2 items pruned');
    expect(workspaces()).toStrictEqual([]);
  });

  it('skips a session another process holds locked', () => {
    box.run(['open', zip, '--name', 'busy']);
    box.run(['open', zip, '--name', 'idle']);
    const holder = Bun.spawn(['sleep', '30']);
    try {
      fs.writeFileSync(
        path.join(box.home, 'workspaces/busy/lock'),
        JSON.stringify({ pid: holder.pid, host: os.hostname(), command: 'sync', since: 'now' }),
      );
      const result = box.run(['prune', '--all', '--json']).json;
      expect(result.pruned.map((p: { name: string }) => p.name)).toStrictEqual(['idle']);
      expect(result.skipped).toStrictEqual([
        {
          name: 'busy',
          reason: `busy: process ${holder.pid} is working in it (zipfs sync); retry when it has finished`,
        },
      ]);
      expect(workspaces()).toStrictEqual(['busy']);
    } finally {
      holder.kill();
    }
  });

  it('cleans leftovers of interrupted opens and closes; a folder without a session record waits for --all', () => {
    box.run(['open', zip]);
    const root = path.join(box.home, 'workspaces');
    const live = `.open-${process.pid}-live`;
    for (const name of ['.open-999999-dead', '.closing-1234', 'broken', live])
      fs.mkdirSync(path.join(root, name, 'contents'), { recursive: true });
    const result = box.run(['prune', '--stale', '1w', '--json']).json;
    expect(result.pruned.map((p: { name: string; reason: string }) => [p.name, p.reason]).sort()).toStrictEqual([
      ['.closing-1234', 'leftover of an interrupted close'],
      ['.open-999999-dead', 'leftover of an interrupted open'],
    ]);
    expect(result.skipped).toStrictEqual([
      {
        name: 'broken',
        reason: 'damaged: it has no manifest.jsonl; remove it with zipfs prune --all or zipfs close broken --force',
      },
    ]);
    expect(workspaces()).toStrictEqual([live, 'broken', 'reports'].sort()); // a live open's staging stays
    expect(
      box
        .run(['prune', '--all', '--json'])
        .json.pruned.map((p: { name: string }) => p.name)
        .sort(),
    ).toStrictEqual(['broken', 'reports']);
  });

  // Each of these once made prune --stale delete the session, unsynced edits and all.
  it.each([
    [
      "another version's manifest",
      (line: string) => line.replace('"format":1', '"format":2'),
      'written by another zipfs version (manifest format 2',
    ],
    ['a first line cut off', (line: string) => line.slice(0, 40), 'line 1 of its manifest.jsonl is not valid JSON'],
    ['garbage on the first line', () => 'not json at all', 'line 1 of its manifest.jsonl is not valid JSON'],
    ['an empty manifest', () => '', 'its manifest.jsonl is empty'],
  ])('skips a session with %s under --stale, saying why, and keeps its edits', (_what, damage, reason) => {
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'edit.txt'), 'unsynced work');
    const manifest = path.join(box.home, 'workspaces', 'reports', 'manifest.jsonl');
    const [first, ...rest] = fs.readFileSync(manifest, 'utf8').split('\n');
    fs.writeFileSync(manifest, [damage(first!), ...rest].join('\n'));
    const old = new Date(Date.now() - 30 * 86_400_000);
    fs.utimesSync(manifest, old, old);
    const result = box.run(['prune', '--stale', '1d', '--json']).json;
    expect(result.pruned).toStrictEqual([]);
    expect(result.skipped).toHaveLength(1);
    expect(result.skipped[0].reason).toContain(reason);
    expect(fs.readFileSync(path.join(root, 'edit.txt'), 'utf8')).toBe('unsynced work');
    // Named, it is a clear SESSION_DAMAGED that says how to get the files out and remove it.
    const status = box.run(['status', '-s', 'reports', '--json']);
    expect(status.code).toBe(ERROR_CODES.SESSION_DAMAGED.exit);
    expect(status.json.error.message).toContain(reason);
    expect(status.json.error.message).toContain('close reports --force');
    expect(box.run(['close', 'reports', '--force', '--json']).json).toStrictEqual({
      closed: true,
      synced: false,
      name: 'reports',
    });
    expect(workspaces()).toStrictEqual([]);
  });
});

describe('resource limits', () => {
  it('refuses an open past the maximum number of sessions', () => {
    box.run(['open', zip, '--name', 'one']);
    box.run(['open', zip, '--name', 'two']);
    const result = box.run(['open', zip, '--name', 'three', '--json'], { env: { ZIPFS_MAX_SESSIONS: '2' } });
    expect(result.code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
    expect(result.json.error.message).toMatch(/2 sessions are open and the limit is 2.*ZIPFS_MAX_SESSIONS/);
  });

  it('refuses an open past the total workspace bytes, saying the usage and the limit', () => {
    box.run(['open', zip, '--name', 'one']);
    const result = box.run(['open', zip, '--name', 'two', '--json'], { env: { ZIPFS_MAX_TOTAL_BYTES: '5000' } });
    expect(result.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(result.json.error.message).toMatch(/hold 3\.\d KiB.*adds 3\.\d KiB.*4\.9 KiB limit.*ZIPFS_MAX_TOTAL_BYTES/);
    expect(workspaces()).toStrictEqual(['one']);
  });
});
