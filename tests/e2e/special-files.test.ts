/**
 * FIFOs, sockets and devices in a workspace. sync once blocked forever in
 * open() on a FIFO (deaf to SIGTERM) and read /dev/zero until it held 4 GB;
 * now nothing opens them: status lists them, sync and read refuse them by name.
 * Every run has a hang guard: a hung zipfs fails the test instead of the suite.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, type sandbox } from '../helpers/cli.ts';
import { sha } from '../helpers/zip-compare.ts';
import { isRoot, needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => ({ box, zip, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

const GUARD = { timeoutMs: 10_000 };

function mkfifo(file: string): void {
  expect(Bun.spawnSync(['mkfifo', file]).exitCode).toBe(0);
}

async function socketAt(file: string): Promise<net.Server> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  return server;
}

describe('special files in a workspace', () => {
  it.skipIf(needs('mkfifo').skip)(
    `lists a new FIFO, refuses to sync it by name, and never blocks on it${needs('mkfifo').why}`,
    () => {
      mkfifo(path.join(root, 'data', 'pipe'));
      const before = sha(zip);
      const status = box.run(['status', '--json'], GUARD).json;
      expect(status.added).toStrictEqual(['data/pipe']);
      expect(status.unsupported).toStrictEqual([
        { path: 'data/pipe', reason: 'it is a FIFO (named pipe), which a zip cannot hold; delete it' },
      ]);
      const human = box.run(['status'], GUARD);
      expect(human.stderr).toContain('sync will refuse "data/pipe"');

      const sync = box.run(['sync', '--json'], GUARD);
      expect(sync.code).toBe(ERROR_CODES.SYNC_FAILED.exit);
      expect(sync.json.error.message).toContain('"data/pipe": it is a FIFO (named pipe)');
      expect(box.run(['sync', '--dry-run', '--json'], GUARD).json.error.code).toBe('SYNC_FAILED');
      expect(sha(zip)).toBe(before);
      expect(fs.readdirSync(box.dir).sort()).toStrictEqual(['home', 'reports.zip']);

      expect(box.run(['read', 'data/pipe', '--json'], GUARD).json.error.message).toContain(
        'is a FIFO (named pipe); zipfs reads regular files only',
      );
      expect(box.run(['grep', 'x', '--json'], GUARD).json.files_searched).toBeGreaterThan(0);
      expect(box.run(['close', '--json'], GUARD).json.error.code).toBe('UNSYNCED_CHANGES');

      // Deleting it is the way out the message gives.
      expect(box.run(['delete', 'data/pipe', '--json'], GUARD).json.deleted).toBe(true);
      expect(box.run(['sync', '--json'], GUARD).json.synced).toBe(true);
    },
  );

  it.skipIf(needs('mkfifo').skip)(
    `takes a FIFO put in place of an archive file as a modification, without opening it${needs('mkfifo').why}`,
    () => {
      fs.rmSync(path.join(root, 'README.txt'));
      mkfifo(path.join(root, 'README.txt'));
      const status = box.run(['status', '--json'], GUARD).json;
      expect(status.modified).toStrictEqual(['README.txt']);
      expect(status.unsupported.map((u: { path: string }) => u.path)).toStrictEqual(['README.txt']);
      expect(box.run(['sync', '--json'], GUARD).json.error.code).toBe('SYNC_FAILED');
      expect(box.run(['close', '--force', '--json'], GUARD).json.closed).toBe(true);
    },
  );

  it('lists a socket and refuses to sync it', async () => {
    const server = await socketAt(path.join(root, 'agent.sock'));
    try {
      const status = box.run(['status', '--json'], GUARD).json;
      expect(status.unsupported).toStrictEqual([
        { path: 'agent.sock', reason: 'it is a socket, which a zip cannot hold; delete it' },
      ]);
      expect(box.run(['sync', '--json'], GUARD).json.error.message).toContain('"agent.sock": it is a socket');
    } finally {
      server.close();
    }
  });

  it.skipIf(!isRoot)('refuses /dev/zero made in the workspace without reading a byte of it (mknod needs root)', () => {
    fs.rmSync(path.join(root, 'logo.png'));
    expect(Bun.spawnSync(['mknod', path.join(root, 'logo.png'), 'c', '1', '5']).exitCode).toBe(0);
    const status = box.run(['status', '--json'], GUARD).json;
    expect(status.modified).toStrictEqual(['logo.png']);
    expect(status.unsupported[0].reason).toContain('a character device');
    expect(box.run(['sync', '--json'], GUARD).json.error.code).toBe('SYNC_FAILED');
    expect(box.run(['read', 'logo.png', '--json'], GUARD).json.error.code).toBe('INVALID_INPUT');
  });
});

describe('content from outside the workspace', () => {
  it('refuses to pack a hard link to a file outside the workspace, and syncs once it is a file of its own', () => {
    const outside = path.join(box.dir, 'secret.txt');
    fs.writeFileSync(outside, 'not for the zip');
    fs.linkSync(outside, path.join(root, 'data', 'linked.txt'));
    const before = sha(zip);
    const status = box.run(['status', '--json']).json;
    expect(status.added).toStrictEqual(['data/linked.txt']);
    expect(status.unsupported[0]).toStrictEqual({
      path: 'data/linked.txt',
      reason:
        'it is a hard link to a file outside the workspace (2 links, 1 inside); make it a file of its own (cp it to ' +
        'a new name and mv that back)',
    });
    const sync = box.run(['sync', '--json']);
    expect(sync.json.error.code).toBe('SYNC_FAILED');
    expect(sha(zip)).toBe(before);

    const linked = path.join(root, 'data', 'linked.txt');
    fs.copyFileSync(linked, `${linked}.copy`);
    fs.renameSync(`${linked}.copy`, linked);
    expect(box.run(['sync', '--json']).json.files_added).toBe(1);
  });

  it('packs hard links whose every link is inside the workspace', () => {
    fs.writeFileSync(path.join(root, 'one.txt'), 'shared');
    fs.linkSync(path.join(root, 'one.txt'), path.join(root, 'data', 'two.txt'));
    expect(box.run(['status', '--json']).json.unsupported).toBeUndefined();
    expect(box.run(['sync', '--json']).json.files_added).toBe(2);
  });

  it('copies an unchanged file from the zip even when someone linked it from outside', () => {
    fs.linkSync(path.join(root, 'README.txt'), path.join(box.dir, 'outside-link'));
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 9,
    });
  });

  it('refuses a workspace folder replaced by a link to another folder, and close --force removes only the link', () => {
    const elsewhere = path.join(box.dir, 'elsewhere');
    fs.mkdirSync(elsewhere);
    fs.writeFileSync(path.join(elsewhere, 'private.txt'), 'keep out');
    fs.renameSync(root, `${root}.moved`);
    fs.symlinkSync(elsewhere, root);
    const before = sha(zip);
    for (const args of [['status'], ['sync'], ['ls'], ['read', 'private.txt']]) {
      const result = box.run([...args, '--json']);
      expect(result.json.error.code).toBe('PATH_TRAVERSAL');
      expect(result.json.error.message).toContain('is a symbolic link');
    }
    expect(sha(zip)).toBe(before);
    expect(box.run(['close', '--force', '--json']).json.closed).toBe(true);
    expect(fs.readFileSync(path.join(elsewhere, 'private.txt'), 'utf8')).toBe('keep out');
  });
});
