import { describe, expect, it } from 'bun:test';
import { ZipfsError } from '../../src/base/errors.ts';
import { entryPath } from '../../src/rules/entry-paths.ts';
import { normaliseToolPath } from '../../src/files/safe-path.ts';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as ZipfsError).code;
  }
}

describe('entry names to workspace paths', () => {
  it.each([
    ['a.txt', 'a.txt', false],
    ['dir/', 'dir', true],
    ['a/./b//c.txt', 'a/b/c.txt', false],
    ['a\\b\\c', 'a/b/c', false],
    ['d\\e\\', 'd/e', true],
    ['a/x/../b.txt', 'a/b.txt', false],
    ['./x', 'x', false],
  ])('maps %p to %p', (name, path, isDirectory) => {
    expect(entryPath(name)).toStrictEqual({ path, isDirectory });
  });

  it.each(['../x', '/abs', '//x', '\\x', 'C:/x', 'c:x', 'a/../../x', '..\\x', 'a\0b', '/'])(
    'refuses %p as PATH_TRAVERSAL',
    (name) => {
      expect(codeOf(() => entryPath(name))).toBe('PATH_TRAVERSAL');
    },
  );

  it.each(['', '.', 'a/..'])('refuses the empty name %p as ZIP_INVALID', (name) => {
    expect(codeOf(() => entryPath(name))).toBe('ZIP_INVALID');
  });

  it.each(['./', './/', 'a/../'])(
    'takes %p, a folder naming the archive root (bsdtar writes "./"), as the workspace itself',
    (name) => {
      expect(entryPath(name)).toStrictEqual({ path: '', isDirectory: true });
    },
  );

  it('refuses a name part longer than file systems allow (255 bytes), in a folder as in a file name', () => {
    expect(codeOf(() => entryPath(`${'d'.repeat(256)}/file.txt`))).toBe('ZIP_INVALID');
    expect(codeOf(() => entryPath(`dir/${'é'.repeat(128)}`))).toBe('ZIP_INVALID'); // 256 bytes in 128 characters
    expect(entryPath(`${'d'.repeat(255)}/f`).path).toBe(`${'d'.repeat(255)}/f`);
  });
});

describe('tool paths', () => {
  it.each([
    ['/', ''],
    ['', ''],
    ['.', ''],
    ['/data/x.csv', 'data/x.csv'],
    ['data\\x.csv', 'data/x.csv'],
    ['data/../README.txt', 'README.txt'],
  ])('normalises %p to %p', (input, expected) => {
    expect(normaliseToolPath(input)).toBe(expected);
  });

  it.each(['..', '../x', '/../x', 'a/../../x'])('refuses %p as PATH_TRAVERSAL', (input) => {
    expect(codeOf(() => normaliseToolPath(input))).toBe('PATH_TRAVERSAL');
  });
});
