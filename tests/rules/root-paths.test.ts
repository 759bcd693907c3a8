/**
 * The path comparison under the MCP server's roots (issue 33), with both platforms' rules: Windows
 * paths through node:path's win32, so the forms one Windows folder takes are checked on any machine.
 */
import { describe, expect, it } from 'bun:test';
import path from 'node:path';
import { comparableForm, isWithin } from '../../src/rules/root-paths.ts';

describe('isWithin on Windows paths (path.win32)', () => {
  const win = (child: string, folder: string) => isWithin(child, folder, path.win32);

  it.each([
    ['C:\\Work\\a.zip', 'C:\\Work'],
    ['C:\\Work', 'C:\\Work'],
    ['C:\\Work\\', 'C:\\Work'],
    ['c:\\Work\\a.zip', 'C:\\Work'], // drive letters have no case
    ['C:\\Work\\a.zip', 'c:\\Work\\'],
    ['C:/Work/sub/a.zip', 'C:\\Work'],
    ['\\\\?\\C:\\Work\\a.zip', 'C:\\Work'], // the long-path form
    ['C:\\Work\\a.zip', '\\\\?\\c:\\Work'],
    ['\\\\.\\C:\\Work\\a.zip', 'C:\\Work'],
    ['\\\\server\\share\\Work\\a.zip', '\\\\server\\share\\Work'],
    ['\\\\?\\UNC\\server\\share\\Work\\a.zip', '\\\\server\\share\\Work'], // UNC in the long-path form
    ['\\\\SERVER\\Share\\Work\\a.zip', '\\\\server\\share\\Work'], // server and share names have no case
    ['\\\\server\\share\\a.zip', '\\\\server\\share\\'],
    ['C:\\a.zip', 'C:\\'],
    ['C:\\Work\\sub\\..\\a.zip', 'C:\\Work'],
  ])('%s is in %s', (child, folder) => {
    expect(win(child, folder)).toBe(true);
  });

  it.each([
    ['C:\\Work2\\a.zip', 'C:\\Work'], // a sibling whose name starts with the root's (CVE-2025-53110)
    ['C:\\Workbench', 'C:\\Work'],
    ['C:\\Work\\..\\Other\\a.zip', 'C:\\Work'],
    ['D:\\Work\\a.zip', 'C:\\Work'],
    ['\\\\other\\share\\Work\\a.zip', '\\\\server\\share\\Work'],
    ['\\\\server\\share2\\a.zip', '\\\\server\\share'],
    ['\\\\?\\UNC\\server\\share\\Other\\a.zip', '\\\\server\\share\\Work'],
    ['C:\\Work', 'C:\\Work\\sub'],
    ['Work\\a.zip', 'C:\\Work'], // relative: nothing to compare
    ['C:Work\\a.zip', 'C:\\'], // drive-relative
    ['\\Work\\a.zip', 'C:\\'], // rooted on the current drive
    // Other names keep their case: the file system's identity settles another spelling (allowed-roots.ts).
    ['C:\\work\\a.zip', 'C:\\Work'],
  ])('%s is not in %s', (child, folder) => {
    expect(win(child, folder)).toBe(false);
  });

  it('makes the forms of one folder one', () => {
    expect(comparableForm('\\\\?\\UNC\\Server\\Share\\x\\', path.win32)).toBe('\\\\server\\share\\x');
    expect(comparableForm('\\\\?\\d:\\x\\y\\..', path.win32)).toBe('D:\\x');
    expect(comparableForm('c:\\', path.win32)).toBe('C:\\');
  });
});

describe('isWithin on POSIX paths', () => {
  it.each([
    ['/home/u/work/a.zip', '/home/u/work', true],
    ['/home/u/work', '/home/u/work/', true],
    ['/home/u/work//sub/./a.zip', '/home/u/work', true],
    ['/a.zip', '/', true],
    ['/home/u/work2/a.zip', '/home/u/work', false],
    ['/home/u/work/../other/a.zip', '/home/u/work', false],
    ['/home/u/Work/a.zip', '/home/u/work', false],
    ['work/a.zip', '/home/u/work', false],
  ])('%s in %s: %p', (child, folder, inside) => {
    expect(isWithin(child, folder, path.posix)).toBe(inside);
  });
});
