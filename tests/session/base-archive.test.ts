/**
 * A session keeps its base zip (session/base-archive.ts): a hard link made at open (eager and lazy)
 * and moved to each archive a sync writes, read entry by entry after another writer replaced the
 * zip, refused once the zip was written in place, and gone with the session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { BASE_COPY_MAX_BYTES, BASE_FILE, hasBase, readBaseEntry } from '../../src/session/base-archive.ts';
import { readManifestLines } from '../../src/session/manifest-lines.ts';
import { loadSession, type Session } from '../../src/session/session-store.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'site.zip',
    rawZip([
      { name: 'index.html', data: '<p>one</p>\n', method: 8 },
      { name: 'notes.txt', data: 'base notes\n' },
    ]),
  );
});
afterEach(() => box.cleanup());

const session = (name: string): Session => loadSession(box.home, name)!;
const baseFile = (name: string) => path.join(box.home, 'workspaces', name, BASE_FILE);
const entryOf = (name: string, entryPath: string) =>
  readManifestLines(session(name).manifest).entries.find((entry) => entry.path === entryPath)!;
const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString() : undefined);

describe("a session's base zip", () => {
  it('is a hard link to the zip at open, eager or lazy: no copy', () => {
    box.run(['open', zip, '--name', 'eager', '--json']);
    box.run(['open', zip, '--name', 'lazy', '--lazy', '--json']);
    const zipStats = fs.statSync(zip);
    expect(zipStats.nlink).toBe(3);
    for (const name of ['eager', 'lazy']) {
      expect(fs.statSync(baseFile(name)).ino).toBe(zipStats.ino);
      expect(hasBase(session(name))).toBe(true);
    }
  });

  it('gives the base bytes after another session replaced the zip, and follows its own syncs', async () => {
    const one = box.run(['open', zip, '--name', 'one', '--json']).json.workspace_path;
    const two = box.run(['open', zip, '--name', 'two', '--json']).json.workspace_path;
    const indexBefore = entryOf('two', 'index.html');
    fs.writeFileSync(path.join(one, 'index.html'), '<p>one, edited</p>\n');
    expect(box.run(['sync', 'one', '--json']).json.synced).toBe(true);
    // The zip is another file now; two's base is still the archive two opened.
    expect(fs.statSync(zip).ino).not.toBe(fs.statSync(baseFile('two')).ino);
    expect(text(await readBaseEntry(session('two'), indexBefore))).toBe('<p>one</p>\n');
    // one's base moved with its sync: the new archive, linked.
    expect(fs.statSync(baseFile('one')).ino).toBe(fs.statSync(zip).ino);
    expect(text(await readBaseEntry(session('one'), entryOf('one', 'index.html')))).toBe('<p>one, edited</p>\n');
    expect(fs.readdirSync(path.dirname(baseFile('one'))).filter((name) => name.endsWith('.next'))).toStrictEqual([]);
    fs.writeFileSync(path.join(two, 'notes.txt'), 'two notes\n');
    expect(box.run(['sync', 'two', '--merge', '--json']).json.synced).toBe(true);
    expect(fs.statSync(baseFile('two')).ino).toBe(fs.statSync(zip).ino);
  });

  it('is not used once the zip was written in place (the link shares its bytes)', async () => {
    box.run(['open', zip, '--name', 'one', '--json']);
    const record = entryOf('one', 'notes.txt');
    expect(text(await readBaseEntry(session('one'), record))).toBe('base notes\n');
    // Another program rewrites the zip in place: the same file, another archive.
    fs.writeFileSync(zip, rawZip([{ name: 'notes.txt', data: 'other notes\n' }]));
    expect(fs.statSync(baseFile('one')).ino).toBe(fs.statSync(zip).ino);
    expect(await readBaseEntry(session('one'), record)).toBeUndefined();
    expect(hasBase(session('one'))).toBe(false);
  });

  it('goes with the session at close and prune, which count no bytes for it', () => {
    box.run(['open', zip, '--name', 'one', '--json']);
    expect(fs.statSync(zip).nlink).toBe(2);
    expect(box.run(['close', 'one', '--json']).code).toBe(0);
    expect(fs.statSync(zip).nlink).toBe(1);
    box.run(['open', zip, '--name', 'two', '--json']);
    const dir = path.dirname(baseFile('two'));
    const others = (fs.readdirSync(dir, { recursive: true }) as string[])
      .map((name) => fs.lstatSync(path.join(dir, name)))
      .filter((stats) => stats.isFile() && stats.nlink === 1)
      .reduce((sum, stats) => sum + stats.size, 0);
    const pruned = box.run(['prune', '--all', '--json']).json;
    expect(pruned.pruned.map((p: { name: string }) => p.name)).toStrictEqual(['two']);
    expect(pruned.freed_bytes).toBe(others);
    expect(fs.statSync(zip).nlink).toBe(1);
  });

  // Another device than the zip's (/dev/shm, a tmpfs, beside /tmp): no link can be made.
  const otherDevice = fs.existsSync('/dev/shm') && fs.statSync('/dev/shm').dev !== fs.statSync(os.tmpdir()).dev;

  it.skipIf(!otherDevice)('is a copy on another device when small, and none when large (no /dev/shm: skipped)', () => {
    const home = fs.mkdtempSync('/dev/shm/zipfs-base-');
    try {
      const env = { ZIPFS_HOME: home };
      box.run(['open', zip, '--name', 'small', '--json'], { env });
      const small = loadSession(home, 'small')!;
      expect(fs.statSync(path.join(small.dir, BASE_FILE)).nlink).toBe(1);
      expect(hasBase(small)).toBe(true);
      const large = writeZip(
        box.dir,
        'large.zip',
        rawZip([{ name: 'big.bin', data: crypto.getRandomValues(new Uint8Array(BASE_COPY_MAX_BYTES + 1)) }]),
      );
      box.run(['open', large, '--name', 'large', '--lazy', '--json'], { env });
      const kept = loadSession(home, 'large')!;
      expect(fs.existsSync(path.join(kept.dir, BASE_FILE))).toBe(false);
      expect(hasBase(kept)).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
