/**
 * Sync's final rename (sync-files.ts, renameOver) with the platform injected: on Windows a zip held
 * open for a moment (a virus scanner, an indexer) is waited for; elsewhere a failed rename stands at once.
 */
import { afterEach, describe, expect, it, spyOn } from 'bun:test';
import fs from 'node:fs';
import { renameOver } from '../../src/sync/sync-files.ts';

/** fs.renameSync failing with `code` for the first `times` calls, then succeeding (doing nothing). */
function failingRename(code: string, times: number) {
  let calls = 0;
  const spy = spyOn(fs, 'renameSync').mockImplementation(() => {
    if (++calls <= times) throw Object.assign(new Error(code), { code, syscall: 'rename' });
  });
  return { spy, calls: () => calls };
}

afterEach(() => {
  (fs.renameSync as unknown as { mockRestore?: () => void }).mockRestore?.();
});

describe('renameOver', () => {
  it('on Windows waits for a file held open for a moment (EBUSY, EPERM, EACCES), then renames', async () => {
    for (const code of ['EBUSY', 'EPERM', 'EACCES']) {
      const rename = failingRename(code, 2);
      await renameOver('a', 'b', 'win32');
      expect(rename.calls()).toBe(3);
      rename.spy.mockRestore();
    }
  });

  it('on Windows gives up after about 1.5 s of retries, with the error', async () => {
    const rename = failingRename('EBUSY', Infinity);
    await expect(renameOver('a', 'b', 'win32')).rejects.toMatchObject({ code: 'EBUSY' });
    expect(rename.calls()).toBe(6);
  });

  it('on Windows does not wait for an error no waiting mends', async () => {
    const rename = failingRename('ENOENT', 1);
    await expect(renameOver('a', 'b', 'win32')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(rename.calls()).toBe(1);
  });

  it('elsewhere tries once', async () => {
    for (const platform of ['linux', 'darwin'] as const) {
      const rename = failingRename('EBUSY', 1);
      await expect(renameOver('a', 'b', platform)).rejects.toMatchObject({ code: 'EBUSY' });
      expect(rename.calls()).toBe(1);
      rename.spy.mockRestore();
    }
  });
});
