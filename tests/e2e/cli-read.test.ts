import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, sandbox } from '../helpers/cli.ts';
import { REPORT_FILES, binaryBytes } from '../helpers/fixtures.ts';

let box: ReturnType<typeof sandbox>;
let root: string;
beforeEach(() => ({ box, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

describe('zipfs ls', () => {
  it('lists the root, folders first, with ADR fields', () => {
    const { entries } = box.run(['ls', '--json']).json;
    expect(entries.map((e: { name: string }) => e.name)).toStrictEqual(['data/', 'empty/', 'README.txt', 'logo.png']);
    expect(entries[2]).toStrictEqual({
      name: 'README.txt',
      type: 'file',
      size_bytes: 17,
      modified_at: '2025-01-30T12:00:00Z',
    });
    expect(entries[0]).toMatchObject({ name: 'data/', type: 'dir', size_bytes: 0 });
  });

  it('lists recursively with paths relative to the folder', () => {
    const names = box.run(['ls', 'data', '-r', '--json']).json.entries.map((e: { name: string }) => e.name);
    expect(names).toStrictEqual(['archive/', 'archive/2024.csv', 'config.json', 'input.csv', 'output.csv']);
  });

  it('lists a single file', () => {
    expect(box.run(['ls', 'data/input.csv', '--json']).json.entries).toStrictEqual([
      {
        name: 'input.csv',
        type: 'file',
        size_bytes: REPORT_FILES['data/input.csv'].length,
        modified_at: '2025-01-30T12:00:00Z',
      },
    ]);
  });

  it('prints an aligned table with sizes and dates for people', () => {
    const lines = box.run(['ls']).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^dir\s+-\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+data\/$/);
    expect(lines[3]).toMatch(/^file\s+2\.9 KiB\s+.*logo\.png$/);
    expect(new Set(lines.map((l) => l.search(/\d{4}-/))).size).toBe(1);
  });

  it('says PATH_NOT_FOUND for a missing path and PATH_TRAVERSAL for an escape', () => {
    expect(box.run(['ls', 'nope', '--json']).json.error.code).toBe('PATH_NOT_FOUND');
    const escape = box.run(['ls', '../..', '--json']);
    expect(escape.code).toBe(ERROR_CODES.PATH_TRAVERSAL.exit);
    expect(escape.json.error.code).toBe('PATH_TRAVERSAL');
  });

  it('refuses a symlink made inside the workspace that points outside', () => {
    fs.symlinkSync('/etc', path.join(root, 'outside'));
    expect(box.run(['ls', 'outside', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    expect(box.run(['read', 'outside/hostname', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    // Listed as a link, never followed.
    const entry = box.run(['ls', '--json']).json.entries.find((e: { name: string }) => e.name === 'outside');
    expect(entry.type).toBe('symlink');
  });
});

describe('zipfs tree', () => {
  it('draws the unicode tree with counts', () => {
    const result = box.run(['tree', '--json']).json;
    expect(result).toStrictEqual({
      tree: [
        '.',
        '├── data/',
        '│   ├── archive/',
        '│   │   └── 2024.csv',
        '│   ├── config.json',
        '│   ├── input.csv',
        '│   └── output.csv',
        '├── empty/',
        '├── README.txt',
        '└── logo.png',
      ].join('\n'),
      file_count: 6,
      dir_count: 3,
    });
  });

  it('stops drawing at max_depth and counts the whole tree, as its schema says (issue 31)', () => {
    const result = box.run(['tree', '--max-depth', '1', '--json']).json;
    expect(result.tree.split('\n')).toStrictEqual(['.', '├── data/', '├── empty/', '├── README.txt', '└── logo.png']);
    expect([result.file_count, result.dir_count]).toStrictEqual([6, 3]);
    expect(box.run(['tree', 'data', '--max-depth', '1', '--json']).json.tree.split('\n')[0]).toBe('data/');
  });

  it('prints the tree and a count line for people; rejects a bad depth', () => {
    expect(box.run(['tree']).stdout).toContain('3 folders, 6 files');
    const bad = box.run(['tree', '--max-depth', '0', '--json']);
    expect(bad.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(bad.json.error.message).toContain('max_depth');
  });
});

describe('zipfs read', () => {
  it('prints a text file', () => {
    const result = box.run(['read', 'data/config.json']);
    expect(result.stdout).toBe(REPORT_FILES['data/config.json']);
    expect(box.run(['read', '/data/config.json', '--json']).json).toStrictEqual({
      content: REPORT_FILES['data/config.json'],
      size_bytes: REPORT_FILES['data/config.json'].length,
      encoding: 'utf-8',
      offset: 0,
      bytes_read: REPORT_FILES['data/config.json'].length,
      remaining_bytes: 0,
      sha256: new Bun.CryptoHasher('sha256').update(REPORT_FILES['data/config.json']).digest('hex'),
    });
  });

  it('reads a byte range as base64', () => {
    const result = box.run([
      'read',
      'logo.png',
      '--encoding',
      'base64',
      '--offset',
      '10',
      '--limit',
      '1024',
      '--json',
    ]).json;
    expect(Buffer.from(result.content, 'base64')).toStrictEqual(Buffer.from(binaryBytes(3000).subarray(10, 1034)));
    expect(result).toMatchObject({ encoding: 'base64', size_bytes: 3000, bytes_read: 1024, remaining_bytes: 1966 });
  });

  it('returns binary asked for as utf-8 as base64, never mangled', () => {
    const result = box.run(['read', 'logo.png', '--limit', '100', '--json']).json;
    expect(result.encoding).toBe('base64');
    expect(Buffer.from(result.content, 'base64')).toStrictEqual(Buffer.from(binaryBytes(100)));
  });

  it('keeps a page from ending inside a UTF-8 character', () => {
    fs.writeFileSync(path.join(root, 'utf8.txt'), 'aé€😀z');
    const first = box.run(['read', 'utf8.txt', '--limit', '4', '--json']).json; // a(1) é(2) €(3 bytes): cut before €
    expect(first).toMatchObject({ content: 'aé', encoding: 'utf-8', bytes_read: 3 });
    const next = box.run(['read', 'utf8.txt', '--offset', '3', '--json']).json;
    expect(next.content).toBe('€😀z');
  });

  it('caps a read at the default limit and says what remains', () => {
    fs.writeFileSync(path.join(root, 'big.txt'), 'x'.repeat(300_000));
    const json = box.run(['read', 'big.txt', '--json']).json;
    expect([json.bytes_read, json.remaining_bytes]).toStrictEqual([262_144, 300_000 - 262_144]);
    const human = box.run(['read', 'big.txt']);
    expect(human.stdout.length).toBe(262_144);
    expect(human.stderr).toContain('--offset 262144');
  });

  it('refuses folders, offsets past the end, missing files and bad arguments', () => {
    expect(box.run(['read', 'data', '--json']).json.error.code).toBe('INVALID_INPUT');
    expect(box.run(['read', 'README.txt', '--offset', '99', '--json']).json.error.code).toBe('INVALID_INPUT');
    expect(box.run(['read', 'missing.txt', '--json']).json.error.code).toBe('PATH_NOT_FOUND');
    expect(box.run(['read', 'README.txt', '--encoding', 'latin1', '--json']).json.error.code).toBe('INVALID_INPUT');
    const unknown = box.run(['read', 'README.txt', '--bogus']);
    expect(unknown.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(unknown.stderr).toContain('--bogus');
  });
});

describe('CLI basics', () => {
  it('prints the version from package.json', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dir, '../../package.json'), 'utf8'));
    expect(box.run(['--version']).stdout.trim()).toBe(pkg.version);
  });

  it('prints help listing every command, and per-command help with an example', () => {
    const help = box.run(['--help']);
    expect(help.code).toBe(0);
    for (const name of ['open', 'sessions', 'path', 'ls', 'tree', 'read', 'close', 'mcp'])
      expect(help.stdout).toMatch(new RegExp(`^\\s+${name}\\s{2,}`, 'm'));
    const ls = box.run(['ls', '--help']).stdout;
    expect(ls).toContain('--recursive');
    expect(ls).toContain('EXAMPLE');
    expect(help.stdout).not.toContain('\u001b[');
  });

  it('rejects an unknown command with the list of commands', () => {
    const result = box.run(['frobnicate', '--json']);
    expect(result.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(result.json.error.message).toContain('open, inspect, sessions');
  });
});
