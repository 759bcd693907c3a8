/**
 * The stat index beside manifest.jsonl (src/session/stat-index.ts): status answers an untouched
 * workspace from it, and an index that is missing, stale, cut short or garbage is ignored, never
 * believed. Which way status went is read from its phase trace (ZIPFS_TRACE_PHASES=1).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { reportsSandbox, writeZip } from '../helpers/cli.ts';
import { lookAtManifest, readStatIndex, writeStatIndexInOrder } from '../../src/session/stat-index.ts';

let box: ReturnType<typeof reportsSandbox>['box'];
let root: string;
let session: string;
beforeEach(() => {
  ({ box, root } = reportsSandbox(true));
  session = path.join(box.home, 'workspaces', 'reports');
});
afterEach(() => box.cleanup());

const indexFile = () => path.join(session, 'stat-index.bin');
const manifestFile = () => path.join(session, 'manifest.jsonl');

/** status --json, and whether the index alone answered it (by the walk beside it, or after a scan). */
function status(env: Record<string, string> = {}): { answer: any; byIndex: boolean } {
  return withWay(env).status;
}

/** status --json, whether the index answered, and whether the walk in its order did (untouched-walk.ts). */
function withWay(env: Record<string, string> = {}): { status: { answer: any; byIndex: boolean }; byWalk: boolean } {
  const run = box.run(['status', '--json'], { env: { ZIPFS_TRACE_PHASES: '1', ...env } });
  const byWalk = run.stderr.includes('status: untouched walk');
  return { status: { answer: run.json, byIndex: byWalk || run.stderr.includes('status: unchanged by stat') }, byWalk };
}

const clean = (count: number) => ({ modified: [], added: [], deleted: [], unchanged_count: count });

/**
 * A rewrite in place (the same inode) that keeps the file's size and puts its mtime back to the nanosecond (touch -r
 * from a copy that kept it): only ctime, and the content, tell it.
 */
function sameSizeAndMtime(relative: string): void {
  const file = path.join(root, relative);
  const before = fs.statSync(file);
  const reference = path.join(box.dir, 'reference');
  expect(Bun.spawnSync(['cp', '-p', file, reference]).exitCode).toBe(0);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').toUpperCase());
  expect(Bun.spawnSync(['touch', '-m', '-r', reference, file]).exitCode).toBe(0);
  const after = fs.statSync(file);
  expect([after.size, after.mtimeMs, after.ino]).toStrictEqual([before.size, before.mtimeMs, before.ino]);
}

describe('the stat index', () => {
  it('is written at open and at sync, and answers status when nothing changed', () => {
    expect(fs.existsSync(indexFile())).toBe(true);
    const first = status();
    expect(first.byIndex).toBe(true);
    const count = first.answer.unchanged_count;
    expect(first.answer).toStrictEqual(clean(count));
    box.run(['write', 'added.txt', 'new']);
    expect(box.run(['sync', '--json']).json.files_added).toBe(1);
    // The manifest sync wrote (each file's stat recorded) has its index: the next status needs no manifest.
    expect(status()).toStrictEqual({ answer: clean(count + 1), byIndex: true });
  });

  it('answers the same where the scan uses node:fs instead of statx', () => {
    const count = status().answer.unchanged_count;
    expect(status({ ZIPFS_NATIVE: '0' })).toStrictEqual({ answer: clean(count), byIndex: true });
    fs.appendFileSync(path.join(root, 'README.txt'), '!');
    expect(status({ ZIPFS_NATIVE: '0' })).toMatchObject({ answer: { modified: ['README.txt'] }, byIndex: false });
  });

  it('is not kept for a lazy session, whose status reads its manifest and directory as before', () => {
    box.run(['close', '--force']);
    const lazy = box.run(['open', path.join(box.dir, 'reports.zip'), '--lazy', '--json']).json;
    expect(fs.existsSync(indexFile())).toBe(false);
    box.run(['extract', 'README.txt']);
    expect(fs.existsSync(indexFile())).toBe(false);
    fs.appendFileSync(path.join(lazy.workspace_path, 'README.txt'), '!');
    expect(status()).toMatchObject({ answer: { modified: ['README.txt'] }, byIndex: false });
  });

  it('still sees a same-size, same-mtime rewrite at once after open (the ctime fence)', () => {
    sameSizeAndMtime('README.txt');
    expect(status()).toMatchObject({ answer: { modified: ['README.txt'] }, byIndex: false });
  });

  it('still sees a same-size, same-mtime rewrite at once after a sync (the recorded stat)', () => {
    box.run(['write', 'data/input.csv', 'id,value\n1,11\n']);
    box.run(['sync']);
    expect(status().byIndex).toBe(true);
    sameSizeAndMtime('data/input.csv');
    expect(status()).toMatchObject({ answer: { modified: ['data/input.csv'] }, byIndex: false });
  });

  it('tells close of unsynced work as status does: a same-size, same-mtime rewrite is refused', () => {
    expect(status().byIndex).toBe(true);
    sameSizeAndMtime('data/config.json');
    expect(box.run(['close', '--json']).json.error.code).toBe('UNSYNCED_CHANGES');
    expect(fs.existsSync(manifestFile())).toBe(true);
    box.run(['sync']);
    expect(status().byIndex).toBe(true);
    expect(box.run(['close', '--json']).json.error).toBeUndefined();
    expect(fs.existsSync(session)).toBe(false);
  });

  it('sees what is new and what is gone', () => {
    fs.mkdirSync(path.join(root, 'fresh'));
    expect(status()).toMatchObject({ answer: { added: ['fresh/'] }, byIndex: false });
    fs.rmdirSync(path.join(root, 'fresh'));
    fs.writeFileSync(path.join(root, 'data/new.csv'), 'x');
    expect(status()).toMatchObject({ answer: { added: ['data/new.csv'] }, byIndex: false });
    fs.rmSync(path.join(root, 'data/new.csv'));
    fs.rmSync(path.join(root, 'logo.png'));
    expect(status()).toMatchObject({ answer: { deleted: ['logo.png'] }, byIndex: false });
  });

  it('is ignored when stale: one made for an earlier manifest does not hide a deleted file', () => {
    const earlier = fs.readFileSync(indexFile());
    box.run(['write', 'notes.txt', 'kept in the zip']);
    box.run(['sync']);
    fs.rmSync(path.join(root, 'notes.txt'));
    // The earlier index lists every file still on disk, untouched, and nothing else: believed, it would say clean.
    fs.writeFileSync(indexFile(), earlier);
    expect(status()).toMatchObject({ answer: { deleted: ['notes.txt'] }, byIndex: false });
  });

  it('is ignored when cut short or garbage, and made again by the next status', () => {
    const whole = fs.readFileSync(indexFile());
    const count = status().answer.unchanged_count;
    for (const damaged of [
      whole.subarray(0, whole.length >> 1),
      whole.subarray(0, 10),
      Buffer.alloc(whole.length, 0x5a),
      Buffer.concat([whole, Buffer.from('x')]),
      Buffer.from(whole).fill(0xff, 40, 48), // a column's bytes: the index's own CRC-32 tells
    ]) {
      fs.writeFileSync(indexFile(), damaged);
      expect(status()).toStrictEqual({ answer: clean(count), byIndex: false });
      expect(fs.readFileSync(indexFile()).equals(whole)).toBe(true);
      expect(status().byIndex).toBe(true);
    }
    fs.rmSync(indexFile());
    expect(status()).toStrictEqual({ answer: clean(count), byIndex: false });
    expect(status().byIndex).toBe(true);
  });

  it('does not hide a damaged manifest, even one edited in place to the same size and mtime', () => {
    expect(status().byIndex).toBe(true);
    const before = fs.statSync(manifestFile());
    const text = fs.readFileSync(manifestFile(), 'utf8');
    const damaged = text.replace('"type":"file"', '"type":"fil?"');
    expect(damaged.length).toBe(text.length);
    fs.writeFileSync(manifestFile(), damaged);
    fs.utimesSync(manifestFile(), before.atime, before.mtime);
    expect(fs.statSync(manifestFile()).ino).toBe(before.ino);
    expect(status().answer.error.code).toBe('SESSION_DAMAGED');
  });
});

/** The workspace's files and folders in the order a scan finds them (readdir's), a folder before what it holds. */
function walkOrder(): { files: string[]; folders: string[] } {
  const files: string[] = [];
  const folders = [''];
  const visit = (relative: string) => {
    for (const name of fs.readdirSync(path.join(root, relative))) {
      const item = relative ? `${relative}/${name}` : name;
      if (fs.lstatSync(path.join(root, item)).isDirectory()) {
        folders.push(item);
        visit(item);
      } else files.push(item);
    }
  };
  visit('');
  return { files, folders };
}

/** Status until the index is in the scan's order: the second status is answered by the walk, clean. */
function settle(): number {
  const first = status();
  expect(first.byIndex).toBe(true);
  const count = first.answer.unchanged_count;
  expect(withWay()).toStrictEqual({ status: { answer: clean(count), byIndex: true }, byWalk: true });
  return count;
}

describe("the walk in the index's order", () => {
  it('answers an untouched workspace once status has put the index in the order the scan finds', () => {
    const count = status().answer.unchanged_count;
    expect(withWay()).toStrictEqual({ status: { answer: clean(count), byIndex: true }, byWalk: true });
    expect(withWay({ ZIPFS_NATIVE: '0' }).status).toStrictEqual({ answer: clean(count), byIndex: true });
  });

  it('sees a changed file at every place in its order', () => {
    settle();
    for (const file of walkOrder().files) {
      fs.appendFileSync(path.join(root, file), '!');
      expect(withWay()).toMatchObject({ status: { answer: { modified: [file] }, byIndex: false }, byWalk: false });
      box.run(['sync']);
      settle();
    }
  });

  it('sees a missing file at every place in its order', () => {
    settle();
    for (const file of walkOrder().files) {
      fs.rmSync(path.join(root, file));
      expect(withWay()).toMatchObject({ status: { answer: { deleted: [file] }, byIndex: false }, byWalk: false });
      box.run(['sync']);
      settle();
    }
  });

  it('sees a new file or folder in every folder, and is clean again once it is gone', () => {
    const count = settle();
    for (const folder of walkOrder().folders) {
      for (const made of ['new.txt', 'new-folder/']) {
        const relative = folder ? `${folder}/${made}` : made;
        if (made.endsWith('/')) fs.mkdirSync(path.join(root, relative));
        else fs.writeFileSync(path.join(root, relative), 'x');
        expect(withWay()).toMatchObject({ status: { answer: { added: [relative] }, byIndex: false }, byWalk: false });
        fs.rmSync(path.join(root, relative), { recursive: true });
        // A folder's own stat is not compared: the index vouches again at once (after a scan: last time was a change).
        expect(withWay()).toStrictEqual({ status: { answer: clean(count), byIndex: true }, byWalk: false });
        expect(withWay().byWalk).toBe(true);
      }
    }
  });

  it('sees a file swapped for a folder or a link, and a folder swapped for a file', () => {
    settle();
    const [file] = walkOrder().files.filter((f) => f.includes('/'));
    fs.rmSync(path.join(root, file!));
    fs.mkdirSync(path.join(root, file!));
    fs.writeFileSync(path.join(root, file!, 'inside.txt'), 'x');
    expect(withWay()).toMatchObject({ status: { byIndex: false }, byWalk: false });
    fs.rmSync(path.join(root, file!), { recursive: true });
    fs.symlinkSync('README.txt', path.join(root, file!));
    expect(withWay()).toMatchObject({ status: { byIndex: false }, byWalk: false });
    fs.rmSync(path.join(root, file!));
    fs.rmdirSync(path.join(root, 'empty'));
    fs.writeFileSync(path.join(root, 'empty'), '');
    const after = withWay();
    expect(after).toMatchObject({ status: { byIndex: false }, byWalk: false });
    expect(after.status.answer.modified.length + after.status.answer.deleted.length).toBeGreaterThan(0);
  });

  it('does not vouch for an index in another order, and puts it in the scan order again', () => {
    const count = settle();
    const stamp = lookAtManifest(manifestFile())!.stamp;
    const index = readStatIndex(session, stamp)!;
    const reversed = Array.from({ length: index.count }, (_, i) => index.count - 1 - i);
    writeStatIndexInOrder(session, index, reversed, stamp);
    expect(withWay()).toStrictEqual({ status: { answer: clean(count), byIndex: true }, byWalk: false });
    expect(withWay().byWalk).toBe(true);
    writeStatIndexInOrder(session, readStatIndex(session, stamp)!, reversed, stamp);
    fs.appendFileSync(path.join(root, walkOrder().files.at(-1)!), '!');
    expect(withWay()).toMatchObject({ status: { answer: { modified: [walkOrder().files.at(-1)] } }, byWalk: false });
  });

  it('scans at once while the last status found a change, and walks again once one finds none', () => {
    const count = settle();
    const hint = path.join(session, 'status-changed');
    fs.appendFileSync(path.join(root, 'README.txt'), '!');
    expect(withWay()).toMatchObject({ status: { answer: { modified: ['README.txt'] } }, byWalk: false });
    expect(fs.existsSync(hint)).toBe(true);
    // The same answer without the hint: it only says which way is faster.
    fs.rmSync(hint);
    expect(withWay()).toMatchObject({ status: { answer: { modified: ['README.txt'] } }, byWalk: false });
    box.run(['sync']);
    expect(withWay()).toStrictEqual({ status: { answer: clean(count), byIndex: true }, byWalk: false });
    expect(fs.existsSync(hint)).toBe(false);
    expect(withWay().byWalk).toBe(true);
  });

  it('reads a folder too large for one read of its entries, and sees a change at its end', () => {
    // 400 names of 200 bytes: over 64 KiB of entries, more than one getdents64 takes in.
    const files = Object.fromEntries(
      Array.from({ length: 400 }, (_, i) => [`${String(i).padStart(4, '0')}${'x'.repeat(196)}.txt`, strToU8(`${i}`)]),
    );
    const zip = writeZip(box.dir, 'wide.zip', zipSync({ wide: files }));
    box.run(['close']); // status names no session: the one open
    root = box.run(['open', zip, '--json']).json.workspace_path;
    session = path.join(box.home, 'workspaces', 'wide');
    const count = settle();
    expect(count).toBeGreaterThanOrEqual(400);
    const last = walkOrder().files.at(-1)!;
    fs.appendFileSync(path.join(root, last), '!');
    expect(withWay()).toMatchObject({ status: { answer: { modified: [last] } }, byWalk: false });
  });
});
