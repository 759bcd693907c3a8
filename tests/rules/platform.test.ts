/**
 * The platform rules (src/rules/platform.ts, file-in-use.ts, folder-rules.ts) with the platform
 * injected, so Windows's and macOS's answers are checked on any machine.
 */
import { describe, expect, it } from 'bun:test';
import {
  foldsCaseByDefault,
  hostPlatform,
  keepsDataInLocalAppData,
  NAME_MAX_BYTES,
  namesDescriptorsInProc,
  openFilesBlockRenames,
  pathMaxBytes,
  refusesWindowsNames,
  terminalsAreDevices,
  type Platform,
} from '../../src/rules/platform.ts';
import { isFileInUse, isRetryableInUse } from '../../src/rules/file-in-use.ts';
import { folderRules, sessionFolderRules } from '../../src/rules/folder-rules.ts';
import { maxEntryPathBytes } from '../../src/rules/entry-paths.ts';
import { ZipfsError } from '../../src/base/errors.ts';
import { dataDir } from '../../src/session/data-dir.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PLATFORMS: Platform[] = ['linux', 'darwin', 'win32', 'freebsd'];

/** A system error as node:fs throws it. */
function systemError(code: string, path?: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed`), { code, errno: -1, syscall: 'rename', path });
}

describe('the platform', () => {
  it('is the host by default', () => {
    expect(hostPlatform()).toBe(process.platform);
    expect(foldsCaseByDefault()).toBe(foldsCaseByDefault(process.platform));
  });

  it('answers each question for each platform', () => {
    const answers = PLATFORMS.map((p) => ({
      p,
      folds: foldsCaseByDefault(p),
      windowsNames: refusesWindowsNames(p),
      blocks: openFilesBlockRenames(p),
      localAppData: keepsDataInLocalAppData(p),
      devices: terminalsAreDevices(p),
      proc: namesDescriptorsInProc(p),
      pathMax: pathMaxBytes(p),
    }));
    expect(answers).toStrictEqual([
      {
        p: 'linux',
        folds: false,
        windowsNames: false,
        blocks: false,
        localAppData: false,
        devices: true,
        proc: true,
        pathMax: 4096,
      },
      {
        p: 'darwin',
        folds: true,
        windowsNames: false,
        blocks: false,
        localAppData: false,
        devices: true,
        proc: false,
        pathMax: 1024,
      },
      {
        p: 'win32',
        folds: true,
        windowsNames: true,
        blocks: true,
        localAppData: true,
        devices: false,
        proc: false,
        pathMax: 4096,
      },
      {
        p: 'freebsd',
        folds: false,
        windowsNames: false,
        blocks: false,
        localAppData: false,
        devices: true,
        proc: false,
        pathMax: 4096,
      },
    ]);
    expect(NAME_MAX_BYTES).toBe(255);
  });

  it('limits an entry path by the platform path limit, less the workspace folder', () => {
    const linux = maxEntryPathBytes('/w', 'linux');
    expect(maxEntryPathBytes('/w', 'darwin')).toBe(linux - (4096 - 1024));
    expect(maxEntryPathBytes('/w/longer', 'linux')).toBe(linux - '/longer'.length);
  });
});

describe('the data folder', () => {
  it('is %LOCALAPPDATA%\\zipfs on Windows only; ZIPFS_HOME first, then XDG_DATA_HOME', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-platform-'));
    try {
      const env = { LOCALAPPDATA: path.join(tmp, 'local'), XDG_DATA_HOME: path.join(tmp, 'xdg') };
      expect(dataDir(env, 'win32')).toBe(path.join(tmp, 'local', 'zipfs'));
      expect(dataDir(env, 'linux')).toBe(path.join(tmp, 'xdg', 'zipfs'));
      expect(dataDir(env, 'darwin')).toBe(path.join(tmp, 'xdg', 'zipfs'));
      expect(dataDir({ ...env, ZIPFS_HOME: path.join(tmp, 'home') }, 'win32')).toBe(path.join(tmp, 'home'));
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('a file in use', () => {
  it('is EBUSY or ETXTBSY everywhere', () => {
    for (const platform of PLATFORMS) {
      expect(isFileInUse(systemError('EBUSY'), { platform })).toBe(true);
      expect(isFileInUse(systemError('ETXTBSY'), { platform })).toBe(true);
    }
  });

  it('is EPERM or EACCES on Windows only, where replacing a held file is "access denied"', () => {
    for (const code of ['EPERM', 'EACCES']) {
      expect(isFileInUse(systemError(code, 'C:\\a.zip'), { platform: 'win32' })).toBe(true);
      for (const platform of ['linux', 'darwin'] as const)
        expect(isFileInUse(systemError(code, '/a.zip'), { platform })).toBe(false);
    }
  });

  it('is "access denied" on Windows only for the files that can be held, when the caller names them', () => {
    const files = ['C:\\a.zip', 'C:\\.a.zip.zipfs-1.tmp'];
    expect(isFileInUse(systemError('EPERM', 'C:\\a.zip'), { platform: 'win32', files })).toBe(true);
    expect(isFileInUse(systemError('EACCES', 'C:\\.a.zip.zipfs-1.tmp'), { platform: 'win32', files })).toBe(true);
    expect(isFileInUse(systemError('EPERM', 'C:\\work\\b.txt'), { platform: 'win32', files })).toBe(false);
    expect(isFileInUse(systemError('EPERM'), { platform: 'win32', files })).toBe(false);
    expect(isFileInUse(systemError('EBUSY', 'C:\\work\\b.txt'), { platform: 'win32', files })).toBe(true);
  });

  it('is never another error, nor a ZipfsError', () => {
    for (const platform of PLATFORMS) {
      for (const code of ['ENOENT', 'EROFS', 'ENOSPC', 'EEXIST'])
        expect(isFileInUse(systemError(code), { platform })).toBe(false);
      expect(isFileInUse(new ZipfsError('FILE_IN_USE', 'x'), { platform })).toBe(false);
      expect(isFileInUse('EBUSY', { platform })).toBe(false);
    }
  });

  it('is retried only where files are held for a moment (Windows)', () => {
    expect(['EBUSY', 'EPERM', 'EACCES'].map((c) => isRetryableInUse(systemError(c), 'win32'))).toStrictEqual([
      true,
      true,
      true,
    ]);
    expect(isRetryableInUse(systemError('ENOENT'), 'win32')).toBe(false);
    for (const platform of ['linux', 'darwin'] as const)
      expect(isRetryableInUse(systemError('EBUSY'), platform)).toBe(false);
  });
});

describe('folder rules', () => {
  it('of a new workspace: the probe decides, else the platform default; names by the platform', () => {
    expect(folderRules(false, 'win32')).toStrictEqual({ caseInsensitive: false, windowsNames: true });
    expect(folderRules(true, 'linux')).toStrictEqual({ caseInsensitive: true, windowsNames: false });
    expect(folderRules(undefined, 'darwin')).toStrictEqual({ caseInsensitive: true, windowsNames: false });
    expect(folderRules(undefined, 'win32')).toStrictEqual({ caseInsensitive: true, windowsNames: true });
    expect(folderRules(undefined, 'linux')).toStrictEqual({ caseInsensitive: false, windowsNames: false });
  });

  it("of a session: what its record says of case, whatever the platform's default", () => {
    expect(sessionFolderRules({ case_insensitive: true }, 'linux')).toStrictEqual({
      caseInsensitive: true,
      windowsNames: false,
    });
    expect(sessionFolderRules({}, 'darwin')).toStrictEqual({ caseInsensitive: false, windowsNames: false });
    expect(sessionFolderRules({ case_insensitive: false }, 'win32')).toStrictEqual({
      caseInsensitive: false,
      windowsNames: true,
    });
  });
});
