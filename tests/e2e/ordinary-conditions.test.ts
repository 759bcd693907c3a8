/**
 * Ordinary conditions that used to end in exit 70 with a stack trace: paths
 * past the system's limit, files that vanish between a folder's listing and
 * their stat (an editor's swap file), and ZIPFS_HOME naming a file. Each gets
 * a documented code, or simply works.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const SEGMENT = 'd'.repeat(200);

describe('paths past the system limit', () => {
  it(
    'refuses at open an archive whose entries would lie ' + 'deeper than a workspace path can reach, leaving nothing',
    () => {
      const deep = `${Array(25).fill(SEGMENT).join('/')}/f.txt`;
      const zip = writeZip(
        box.dir,
        'deep.zip',
        rawZip([
          { name: 'ok.txt', data: 'ok' },
          { name: deep, data: 'deep' },
        ]),
      );
      const result = box.run(['open', zip, '--json']);
      expect(result.json.error.code).toBe('LIMIT_EXCEEDED');
      expect(result.json.error.message).toContain('bytes deep');
      expect(result.json.error.message.length).toBeLessThan(1000);
      expect(
        fs.existsSync(path.join(box.home, 'workspaces')) ? fs.readdirSync(path.join(box.home, 'workspaces')) : [],
      ).toStrictEqual([]);
    },
  );

  it('lists, searches, diffs and shows status of a workspace folder deeper than the system path limit', () => {
    const zip = writeZip(box.dir, 'shallow.zip', rawZip([{ name: 'a.txt', data: 'a' }]));
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    const made = Bun.spawnSync([
      'bash',
      '-c',
      `cd "$1" && for i in $(seq 25); do mkdir ${SEGMENT} && cd ${SEGMENT}; done && echo needle > f.txt`,
      'bash',
      root,
    ]);
    expect(made.exitCode).toBe(0);
    const status = box.run(['status', '--json']);
    expect(status.code).toBe(0);
    expect(status.json.added).toHaveLength(1);
    expect(status.json.added[0]).toEndWith('/f.txt');
    const ls = box.run(['ls', '-r', '--json']);
    expect(ls.code).toBe(0);
    expect(ls.json.entries.some((e: { name: string }) => e.name.endsWith('/f.txt'))).toBe(true);
    const grep = box.run(['grep', 'needle', '--json']);
    expect(grep.json.total_matches).toBe(1);
    expect(box.run(['tree', '--json']).json.file_count).toBe(2);
    expect(box.run(['diff', '--json']).code).toBe(0);
    // open would refuse such a path (sync-refusals.test.ts)
    expect(box.run(['sync', '--json']).json.error.code).toBe('SYNC_FAILED');
    expect(box.run(['close', '--force', '--json']).code).toBe(0);
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual([]);
  });
});

describe('files that vanish while zipfs looks', () => {
  it('status and sync take a swap file that comes and goes as there or not, never as a failure', async () => {
    const zip = writeZip(
      box.dir,
      'edit.zip',
      rawZip([
        { name: 'doc.txt', data: 'doc' },
        { name: 'sub/x.txt', data: 'x' },
      ]),
    );
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    // An editor's churn: files and folders made and removed as fast as can be.
    const churn = Bun.spawn([
      process.execPath,
      '-e',
      `
      const fs = require('node:fs'); const root = process.argv[1]; const end = Date.now() + 60000;
      process.on('SIGTERM', () => process.exit(0));
      (async () => { while (Date.now() < end) { for (let i = 0; i < 50; i++) {
        try {
          fs.writeFileSync(root + '/.doc.txt.swp', 'x'); fs.rmSync(root + '/.doc.txt.swp');
          fs.mkdirSync(root + '/sub/tmp'); fs.writeFileSync(root + '/sub/tmp/t', 't');
          fs.rmSync(root + '/sub/tmp', { recursive: true });
        } catch {}
      } await Bun.sleep(0); } })();
    `,
      root,
    ]);
    const failures: string[] = [];
    try {
      for (let i = 0; i < 60; i++) {
        const status = box.run(['status', '--json']);
        if (status.code !== 0) failures.push(`status: ${status.stdout}${status.stderr}`);
        if (i % 10 === 0) {
          fs.writeFileSync(path.join(root, 'doc.txt'), `doc ${i}`);
          const sync = box.run(['sync', '--no-backup', '--json']);
          if (sync.code !== 0) failures.push(`sync: ${sync.stdout}${sync.stderr}`);
        }
      }
    } finally {
      churn.kill('SIGTERM');
      await churn.exited;
    }
    expect(failures).toStrictEqual([]);
  }, 120_000);
});

describe('the data folder', () => {
  it('is INVALID_INPUT, naming the variable, when ZIPFS_HOME names a file', () => {
    const file = path.join(box.dir, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    const zip = writeZip(box.dir, 'a.zip', rawZip([{ name: 'a.txt', data: 'a' }]));
    for (const args of [['sessions'], ['open', zip], ['status']]) {
      const result = box.run([...args, '--json'], { env: { ZIPFS_HOME: file } });
      expect(result.code).toBe(2);
      expect(result.json.error.code).toBe('INVALID_INPUT');
      expect(result.json.error.message).toContain('ZIPFS_HOME');
    }
  });
});
