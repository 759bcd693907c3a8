/**
 * The case-insensitive test folder itself (tests/helpers/casefold-fs.py): the
 * rules of APFS and NTFS that the zipfs tests rely on, checked through node:fs
 * as zipfs makes them (a regression here would make those tests prove
 * nothing), the system calls zipfs makes on a workspace, and one whole zipfs
 * session with its data folder on the mount.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { STAT_FIELDS, libc } from '../../src/base/libc.ts';
import { runZipfs } from '../helpers/cli.ts';
import { casefoldAvailable, mountCasefold, type CasefoldMount } from '../helpers/casefold-mount.ts';
import { reportsZip } from '../helpers/fixtures.ts';

const available = casefoldAvailable();
let mount: CasefoldMount | undefined;
beforeAll(async () => {
  if (!available.skip) mount = await mountCasefold();
});
afterAll(() => mount?.unmount());

/** A fresh folder on the mount per test, and the same folder as stored behind it. */
let dir: string;
let stored: string;
beforeEach(() => {
  if (!mount) return;
  dir = fs.mkdtempSync(path.join(mount.path, 't-'));
  stored = path.join(mount.backing, path.basename(dir));
});
const at = (name: string) => path.join(dir, name);
const names = (folder = dir) => fs.readdirSync(folder).sort();
const errorCode = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
  return 'no error';
};

/** Whether a process is still running (a zombie has no command line; a reaped one no /proc entry). */
function running(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') !== '';
  } catch {
    return false;
  }
}

describe.skipIf(available.skip)(`casefold-fs, a case-insensitive folder on Linux${available.why}`, () => {
  it('finds an entry under any case at every component, and lists the stored names', () => {
    fs.mkdirSync(at('Docs/Sub'), { recursive: true });
    fs.writeFileSync(at('Docs/Sub/Read Me.txt'), 'hello');
    expect(fs.readFileSync(at('DOCS/sub/read ME.TXT'), 'utf8')).toBe('hello');
    expect(fs.statSync(at('docs/SUB/read me.txt')).ino).toBe(fs.statSync(at('Docs/Sub/Read Me.txt')).ino);
    expect(names(at('docs/sub'))).toStrictEqual(['Read Me.txt']);
    expect(names(path.join(stored, 'Docs/Sub'))).toStrictEqual(['Read Me.txt']);
    expect(fs.existsSync(at('docs/nothing'))).toBe(false);
  });

  it('folds beyond ASCII (Unicode case folding)', () => {
    fs.writeFileSync(at('Ærøskøbing-ΣΊΣΥΦΟΣ.txt'), 'x');
    expect(fs.readFileSync(at('ærøskøbing-σίσυφος.txt'), 'utf8')).toBe('x');
    expect(names()).toStrictEqual(['Ærøskøbing-ΣΊΣΥΦΟΣ.txt']);
  });

  it('opens the existing entry, under its stored name, when a file is created under another case', () => {
    fs.writeFileSync(at('README.txt'), 'old');
    fs.writeFileSync(at('readme.TXT'), 'new');
    expect(names()).toStrictEqual(['README.txt']);
    expect(fs.readFileSync(at('README.txt'), 'utf8')).toBe('new');
    expect(errorCode(() => fs.writeFileSync(at('Readme.Txt'), 'x', { flag: 'wx' }))).toBe('EEXIST');
    fs.appendFileSync(at('readme.txt'), '+');
    expect(fs.readFileSync(path.join(stored, 'README.txt'), 'utf8')).toBe('new+');
  });

  it('refuses a folder, link or symbolic link under another case of an existing name (EEXIST)', () => {
    fs.mkdirSync(at('docs'));
    fs.writeFileSync(at('file'), 'x');
    expect(errorCode(() => fs.mkdirSync(at('Docs')))).toBe('EEXIST');
    expect(errorCode(() => fs.linkSync(at('file'), at('DOCS')))).toBe('EEXIST');
    expect(errorCode(() => fs.symlinkSync('file', at('FILE')))).toBe('EEXIST');
    expect(names()).toStrictEqual(['docs', 'file']);
  });

  it(
    "renames a file or a folder to another case of its own name (a case-only rename), keeping a folder's " + 'contents',
    () => {
      fs.writeFileSync(at('a.txt'), 'a');
      fs.renameSync(at('a.txt'), at('A.txt'));
      expect(names()).toStrictEqual(['A.txt']);
      fs.mkdirSync(at('docs'));
      fs.writeFileSync(at('docs/one.txt'), '1');
      fs.renameSync(at('docs'), at('Docs'));
      expect(names()).toStrictEqual(['A.txt', 'Docs']);
      expect(names(at('docs'))).toStrictEqual(['one.txt']);
      expect(names(path.join(stored, 'Docs'))).toStrictEqual(['one.txt']);
    },
  );

  it('replaces another entry that matches case-insensitively on rename, keeping its stored name (as APFS does)', () => {
    fs.writeFileSync(at('file.txt'), 'old');
    fs.writeFileSync(at('new.txt'), 'new');
    fs.renameSync(at('new.txt'), at('File.TXT'));
    expect(names()).toStrictEqual(['file.txt']);
    expect(fs.readFileSync(at('FILE.txt'), 'utf8')).toBe('new');
    fs.mkdirSync(at('empty'));
    fs.mkdirSync(at('full'));
    fs.writeFileSync(at('full/x'), 'x');
    fs.renameSync(at('full'), at('EMPTY'));
    expect(names()).toStrictEqual(['empty', 'file.txt']);
    expect(names(at('Empty'))).toStrictEqual(['x']);
  });

  it('moves across folders named in any case, and into a new name as given', () => {
    fs.mkdirSync(at('From'));
    fs.mkdirSync(at('To'));
    fs.writeFileSync(at('From/x.txt'), 'x');
    fs.renameSync(at('FROM/X.TXT'), at('to/Y.txt'));
    expect(names(at('to'))).toStrictEqual(['Y.txt']);
    expect(names(path.join(stored, 'To'))).toStrictEqual(['Y.txt']);
  });

  it('removes, stats, chmods, times and truncates through any case', () => {
    fs.mkdirSync(at('Folder'));
    fs.writeFileSync(at('Data.bin'), '0123456789');
    fs.chmodSync(at('DATA.BIN'), 0o640);
    fs.truncateSync(at('data.BIN'), 4);
    fs.utimesSync(at('data.bin'), new Date('2001-02-03T04:05:06Z'), new Date('2002-03-04T05:06:07Z'));
    const behind = fs.statSync(path.join(stored, 'Data.bin'));
    expect(behind.mode & 0o7777).toBe(0o640);
    expect(behind.mtime.toISOString()).toBe('2002-03-04T05:06:07.000Z');
    expect(behind.size).toBe(4);
    expect(fs.lstatSync(at('DATA.bin')).size).toBe(4);
    fs.unlinkSync(at('dATA.BIN'));
    fs.rmdirSync(at('FOLDER'));
    expect(names()).toStrictEqual([]);
  });

  it('keeps nanosecond times, and a time left out (UTIME_OMIT) as it was', () => {
    fs.writeFileSync(at('t'), '');
    fs.utimesSync(at('T'), 1_000_000_000.5, 2_000_000_000.25);
    expect(fs.statSync(at('t'), { bigint: true }).mtimeNs).toBe(2_000_000_000_250_000_000n);
    // touch -m sets the modification time alone: utimensat with the access time UTIME_OMIT.
    expect(Bun.spawnSync(['touch', '-m', '-d', '@1500000000', at('T')]).exitCode).toBe(0);
    const behind = fs.statSync(path.join(stored, 't'), { bigint: true });
    expect([behind.atimeNs, behind.mtimeNs]).toStrictEqual([1_000_000_000_500_000_000n, 1_500_000_000_000_000_000n]);
  });

  it('reads, writes at offsets, fsyncs, hard-links and follows symbolic links', () => {
    const fd = fs.openSync(at('File'), 'w+');
    fs.writeSync(fd, 'hello world');
    fs.writeSync(fd, 'W', 6);
    fs.fsyncSync(fd);
    const back = Buffer.alloc(11);
    fs.readSync(fd, back, 0, 11, 0);
    fs.closeSync(fd);
    expect(back.toString()).toBe('hello World');
    fs.linkSync(at('FILE'), at('Link'));
    expect(fs.statSync(at('link')).nlink).toBe(2);
    fs.symlinkSync('File', at('Sym'));
    expect(fs.readlinkSync(at('SYM'))).toBe('File');
    expect(fs.readFileSync(at('sym'), 'utf8')).toBe('hello World');
    expect(fs.lstatSync(at('sym')).isSymbolicLink()).toBe(true);
    expect(fs.statfsSync(dir).bsize).toBeGreaterThan(0);
  });

  it(
    'answers what zipfs asks of a workspace: folder descriptors, /proc/self/fd paths, statx, copy_file_range, ' +
      'fsync of a folder, link for locks',
    () => {
      fs.mkdirSync(at('Work'));
      fs.writeFileSync(at('Work/Source.bin'), Buffer.alloc(200_000, 7));
      const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = fs.constants;
      const folder = fs.openSync(at('work'), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
      try {
        const inside = (name: string) => `/proc/self/fd/${folder}/${name}`;
        expect(fs.readdirSync(`/proc/self/fd/${folder}`)).toStrictEqual(['Source.bin']);
        expect(fs.statSync(inside('SOURCE.BIN')).size).toBe(200_000);
        const native = libc();
        const out = new Float64Array(STAT_FIELDS.count);
        if (native) expect(native.statAt(folder, 'source.bin', out) && out[STAT_FIELDS.size]).toBe(200_000);
        const from = fs.openSync(inside('source.BIN'), 'r');
        const to = fs.openSync(inside('copy.bin'), 'wx');
        const copied = native ? native.copyFileRange(from, 0, to, 0, 200_000) : -1;
        if (copied < 0) fs.writeSync(to, fs.readFileSync(from)); // where the kernel would not, zipfs copies another way
        fs.fsyncSync(to);
        fs.closeSync(from);
        fs.closeSync(to);
        expect(fs.readFileSync(at('WORK/COPY.BIN')).equals(Buffer.alloc(200_000, 7))).toBe(true);
        fs.fsyncSync(folder);
        fs.linkSync(inside('copy.bin'), inside('lock'));
        expect(errorCode(() => fs.linkSync(inside('copy.bin'), inside('LOCK')))).toBe('EEXIST');
        fs.writeFileSync(inside('next'), 'replaced');
        fs.renameSync(inside('next'), inside('SOURCE.bin'));
        expect(fs.readdirSync(`/proc/self/fd/${folder}`).sort()).toStrictEqual(['Source.bin', 'copy.bin', 'lock']);
        expect(fs.readFileSync(inside('source.bin'), 'utf8')).toBe('replaced');
      } finally {
        fs.closeSync(folder);
      }
    },
  );

  it('passes names that are not UTF-8 through unchanged', () => {
    const name = Buffer.from([0x6e, 0xff, 0x2e, 0x74]);
    fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), name]), 'x');
    expect(fs.readdirSync(dir, { encoding: 'buffer' })).toStrictEqual([name]);
    expect(fs.readdirSync(stored, { encoding: 'buffer' })).toStrictEqual([name]);
  });

  it('refuses rename flags (libfuse 2 has none): renameat2 with RENAME_NOREPLACE is EINVAL, plain rename works', () => {
    const { dlopen, FFIType, ptr, toArrayBuffer } = require('bun:ffi') as typeof import('bun:ffi');
    const { symbols } = dlopen('libc.so.6', {
      renameat2: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
      __errno_location: { args: [], returns: FFIType.ptr },
    });
    fs.writeFileSync(at('x'), 'x');
    const cString = (text: string) => Buffer.from(`${text}\0`);
    const [AT_FDCWD, RENAME_NOREPLACE, EINVAL] = [-100, 1, 22];
    expect(symbols.renameat2(AT_FDCWD, ptr(cString(at('x'))), AT_FDCWD, ptr(cString(at('y'))), RENAME_NOREPLACE)).toBe(
      -1,
    );
    expect(new Int32Array(toArrayBuffer(symbols.__errno_location()!, 0, 4))[0]).toBe(EINVAL);
    fs.renameSync(at('x'), at('y'));
    expect(names()).toStrictEqual(['y']);
  });

  it(
    'unmounts and removes its folders, and a later mount ' + 'detaches and removes one whose server was killed',
    async () => {
      const mountinfo = () => fs.readFileSync('/proc/self/mountinfo', 'utf8');
      const second = await mountCasefold();
      const third = await mountCasefold();
      let fourth: CasefoldMount | undefined;
      try {
        fs.writeFileSync(path.join(second.path, 'f'), 'x');
        second.unmount();
        expect(mountinfo()).not.toContain(` ${second.path} `);
        expect(fs.existsSync(path.dirname(second.path))).toBe(false);
        // A server killed outright leaves its mount behind, answering "Transport endpoint is not connected" (or
        // "aborted").
        const pid = Number(
          mountinfo()
            .split('\n')
            .find((line) => line.includes(` ${third.path} `))
            ?.match(/casefold-fs\.(\d+)/)?.[1],
        );
        process.kill(pid, 'SIGKILL');
        while (running(pid)) await Bun.sleep(10);
        // ENOENT: a mount made meanwhile by another test file (they run in parallel) already detached and removed it.
        expect(['ENOTCONN', 'ECONNABORTED', 'ENOENT']).toContain(errorCode(() => fs.readdirSync(third.path))!);
        fourth = await mountCasefold();
        expect(mountinfo()).not.toContain(` ${third.path} `);
        expect(fs.existsSync(path.dirname(third.path))).toBe(false);
      } finally {
        for (const mount of [second, third, fourth]) mount?.unmount();
      }
    },
  );
});

describe.skipIf(available.skip)(`zipfs with its data folder on casefold-fs${available.why}`, () => {
  it('opens a zip, writes, shows status, syncs and closes', () => {
    const env = { ZIPFS_HOME: at('home') };
    const zip = at('reports.zip');
    fs.writeFileSync(zip, reportsZip());
    const opened = runZipfs(['open', zip, '--json'], { env });
    expect(opened.code).toBe(0);
    expect(opened.json.workspace_path).toBe(at('home/workspaces/reports/contents'));
    expect(runZipfs(['write', 'data/config.json', '{}\n'], { env }).code).toBe(0);
    expect(runZipfs(['write', 'notes.txt', 'hello'], { env }).code).toBe(0);
    expect(runZipfs(['status', '--json'], { env }).json).toStrictEqual({
      modified: ['data/config.json'],
      added: ['notes.txt'],
      deleted: [],
      unchanged_count: 8,
    });
    expect(runZipfs(['sync', '--json'], { env }).json).toMatchObject({
      synced: true,
      files_modified: 1,
      files_added: 1,
      files_deleted: 0,
    });
    expect(runZipfs(['close', '--json'], { env }).json).toMatchObject({ closed: true, name: 'reports' });
    const synced = unzipSync(fs.readFileSync(zip));
    expect(strFromU8(synced['data/config.json']!)).toBe('{}\n');
    expect(strFromU8(synced['notes.txt']!)).toBe('hello');
    expect(names()).toStrictEqual(['home', 'reports.zip', 'reports.zip.bak']);
    expect(names(at('home/workspaces'))).toStrictEqual([]);
  });
});
