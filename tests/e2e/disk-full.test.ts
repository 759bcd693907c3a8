/**
 * A disk that fills up under zipfs, on a small tmpfs (mounting needs root;
 * elsewhere these are skipped and say so). Open once met ENOSPC while
 * streaming a large entry and then idled forever; now it ends with
 * LIMIT_EXCEEDED naming the disk and leaves no staging folder. Sync ends with
 * SYNC_FAILED and the zip as it was.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { runZipfs } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { sha } from '../helpers/zip-compare.ts';
import { isRoot } from '../helpers/tools.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-full-'));
const disk = path.join(scratch, 'disk');
fs.mkdirSync(disk);
const mounted = isRoot && Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', disk]).exitCode === 0;
const why = isRoot ? 'mount -t tmpfs was refused here' : 'mounting a tmpfs needs root';

afterAll(() => {
  if (mounted) Bun.spawnSync(['umount', disk]);
  fs.rmSync(scratch, { recursive: true, force: true });
});
beforeEach(() => {
  if (mounted)
    for (const name of fs.readdirSync(disk)) fs.rmSync(path.join(disk, name), { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runZipfs(args, { env: { ZIPFS_HOME: path.join(disk, 'home'), ...env }, timeoutMs: 30_000 });

/** Text-like data that deflates about 3:1, so it takes the inflating (not the copying) path. */
function textData(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `${i} ${Math.random().toString(36).slice(2)} ${(i * 7919).toString(16)}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

let archive: string;
beforeAll(() => {
  // 4,000 one-byte files take a 4 KiB page each (16 MiB) but declare 4 KB, so the free-space
  // check before extraction passes; the 20 MiB entry after them then meets a full disk while it streams.
  const entries: RawEntry[] = Array.from({ length: 4000 }, (_, i) => ({
    name: `small/${i}.txt`,
    data: 'x',
    method: 0,
  }));
  entries.push({ name: 'large.txt', data: textData(20 << 20) });
  archive = path.join(scratch, 'big.zip');
  fs.writeFileSync(archive, rawZip(entries));
});

describe.skipIf(!mounted)(`a full disk${mounted ? '' : ` (skipped: ${why})`}`, () => {
  it.each([
    ['on two threads', {}],
    ['on one thread', { ZIPFS_THREADS: '1' }],
  ])('ends open %s with LIMIT_EXCEEDED naming the disk, leaving no staging folder', (_how, env) => {
    const result = run(['open', archive, '--json'], env);
    expect(result.json?.error?.code).toBe('LIMIT_EXCEEDED');
    expect(result.code).toBe(ERROR_CODES.LIMIT_EXCEEDED.exit);
    expect(result.json.error.message).toContain(`The disk holding ${path.join(disk, 'home', 'workspaces')} is full`);
    expect(fs.readdirSync(path.join(disk, 'home', 'workspaces'))).toStrictEqual([]);
  });

  it('ends sync with SYNC_FAILED, the zip as it was and no temporary, and syncs once there is room', () => {
    const zip = path.join(disk, 'small.zip');
    fs.writeFileSync(zip, rawZip([{ name: 'a.txt', data: 'a' }]));
    const root = run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'added.txt'), textData(2 << 20));
    expectSyncToMeetFullDisk(zip, 256 << 10);
  });

  it('ends a sync whose copy of the unchanged bytes meets a full disk the same way', () => {
    // A first entry that grows moves the stored one after it off its place within a page: that copy goes through
    // the C library's read and write (writer.ts), whose failure the portable copy then reports.
    const zip = path.join(disk, 'shifted.zip');
    fs.writeFileSync(
      zip,
      rawZip([
        { name: 'a.txt', data: 'a' },
        { name: 'b.bin', data: randomBytes(4 << 20), method: 0 },
      ]),
    );
    const root = run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'a.txt'), 'a longer first entry, so that every byte after it moves\n');
    expectSyncToMeetFullDisk(zip, 1 << 20);
  });
});

/**
 * With the disk filled but for `leave` bytes, sync of the session of `zip` fails with SYNC_FAILED naming the disk,
 * leaves the zip as it was and no temporary beside it, and succeeds once there is room again.
 */
function expectSyncToMeetFullDisk(zip: string, leave: number): void {
  const filler = path.join(disk, 'filler');
  const free = fs.statfsSync(disk).bavail * fs.statfsSync(disk).bsize;
  expect(Bun.spawnSync(['fallocate', '-l', String(free - leave), filler]).exitCode).toBe(0);
  const before = sha(zip);
  const result = run(['sync', '--json']);
  expect(result.json.error.code).toBe('SYNC_FAILED');
  expect(result.json.error.message).toContain(`The disk holding ${disk} is full`);
  expect(sha(zip)).toBe(before);
  expect(fs.readdirSync(disk).sort()).toStrictEqual(['filler', 'home', path.basename(zip)]);
  fs.rmSync(filler);
  expect(run(['sync', '--json']).json.synced).toBe(true);
}
