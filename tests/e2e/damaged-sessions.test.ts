/**
 * Sessions whose files on disk are not what zipfs left: a damaged manifest, a
 * missing workspace folder, a folder where the lock goes, file names that are
 * not UTF-8. Each used to end in INTERNAL_ERROR (exit 70) with a stack trace;
 * each is now a documented code whose message says what to do.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, type sandbox } from '../helpers/cli.ts';
import { sha } from '../helpers/zip-compare.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
let manifest: string;
beforeEach(() => {
  ({ box, zip, root } = reportsSandbox(true));
  manifest = path.join(box.home, 'workspaces', 'reports', 'manifest.jsonl');
});
afterEach(() => box.cleanup());

function editManifest(change: (lines: string[]) => string[]): void {
  const lines = fs.readFileSync(manifest, 'utf8').split('\n');
  fs.writeFileSync(manifest, change(lines).join('\n'));
}

function expectDamaged(args: string[], detail: string | RegExp): void {
  const result = box.run([...args, '--json']);
  expect(result.code).toBe(ERROR_CODES.SESSION_DAMAGED.exit);
  expect(result.json.error.code).toBe('SESSION_DAMAGED');
  expect(result.json.error.message).toMatch(detail);
}

describe('a damaged manifest', () => {
  it.each([
    [
      'a truncated entry line',
      (l: string[]) => [...l.slice(0, 3), l[3]!.slice(0, 25)],
      /line 4 of its manifest.jsonl is not valid JSON \(cut off/,
    ],
    [
      'a garbage line',
      (l: string[]) => [...l.slice(0, 2), 'garbage', ...l.slice(2)],
      /line 3 of its manifest.jsonl is not valid JSON/,
    ],
    [
      'a field of the wrong type',
      (l: string[]) => [l[0]!, l[1]!.replace(/"size":\d+/, '"size":"big"'), ...l.slice(2)],
      /entry record 1 \(line 2\).*field "size" is not a number/,
    ],
    [
      'an entry of another kind',
      (l: string[]) => [l[0]!, '{"kind":"entry","type":"pipe"}', ...l.slice(2)],
      /field "type" is not file, dir or symlink/,
    ],
    [
      'a session record without its source',
      (l: string[]) => [l[0]!.replace(/"source":\{[^}]*\},/, ''), ...l.slice(1)],
      /line 1 .*field "source" is missing/,
    ],
  ])('with %s is SESSION_DAMAGED for status, sync and close, and close --force removes it', (_what, damage, detail) => {
    editManifest(damage);
    const before = sha(zip);
    for (const args of [['status'], ['sync'], ['close'], ['close', '--sync']]) expectDamaged(args, detail);
    expect(sha(zip)).toBe(before);
    expect(box.run(['close', 'reports', '--force', '--json']).json).toStrictEqual({
      closed: true,
      synced: false,
      name: 'reports',
    });
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual([]);
  });

  it('reads past blank lines, as JSON Lines readers do', () => {
    editManifest((l) => [l[0]!, '', l[1]!, '   ', ...l.slice(2)]);
    expect(box.run(['status', '--json']).json).toStrictEqual({
      modified: [],
      added: [],
      deleted: [],
      unchanged_count: 9,
    });
  });

  it('tells the session apart in listings: sessions shows the usable ones, a name shows why the other is not', () => {
    box.run(['open', zip, '--name', 'healthy']);
    editManifest((l) => ['{"kind":"session","format":99}', ...l.slice(1)]);
    expect(box.run(['sessions', '--json']).json.sessions.map((s: { name: string }) => s.name)).toStrictEqual([
      'healthy',
    ]);
    expectDamaged(['status', '-s', 'reports'], /another zipfs version \(manifest format 99/);
    expect(box.run(['status', '--json']).json.unchanged_count).toBe(9); // the only usable session
  });
});

describe('a damaged workspace folder', () => {
  it('is SESSION_DAMAGED when contents/ is gone or is a file, and close --force still removes the session', () => {
    fs.rmSync(root, { recursive: true });
    expectDamaged(['status'], /workspace folder contents\/ is missing/);
    fs.writeFileSync(root, 'not a folder');
    expectDamaged(['sync'], /contents\/ is not a folder/);
    expectDamaged(['ls'], /not a folder/);
    expect(box.run(['close', '--force', '--json']).json.closed).toBe(true);
  });

  it('is SESSION_DAMAGED, saying what to remove, when a folder sits where the lock goes; reads still work', () => {
    const lock = path.join(box.home, 'workspaces', 'reports', 'lock');
    fs.mkdirSync(lock);
    const result = box.run(['write', 'x.txt', 'x', '--json']);
    expect(result.json.error.code).toBe('SESSION_DAMAGED');
    expect(result.json.error.message).toContain(`${lock} is a folder, not a zipfs lock. Remove it`);
    expect(box.run(['status', '--json']).json.unchanged_count).toBe(9);
    fs.rmdirSync(lock);
    expect(box.run(['write', 'x.txt', 'x', '--json']).json.written).toBe(true);
  });
});

describe('file names that are not UTF-8', () => {
  // Made through a path given as bytes: the name holds 0xFF, which no UTF-8 text has.
  const badName = Buffer.concat([Buffer.from('data/caf'), Buffer.from([0xe9, 0xff]), Buffer.from('.txt')]);

  it('are listed (escaped) by status, refused by sync, kept by close, and removed by close --force', () => {
    fs.writeFileSync(Buffer.concat([Buffer.from(`${root}/`), badName]), 'latin-1 name');
    const status = box.run(['status', '--json']).json;
    expect(status.added).toStrictEqual(['data/caf\\xe9\\xff.txt']);
    expect(status.unsupported).toStrictEqual([
      { path: 'data/caf\\xe9\\xff.txt', reason: 'its name is not valid UTF-8; rename it' },
    ]);
    const before = sha(zip);
    // Quoted in the message as names are: the backslashes of its \xNN escapes escaped in turn.
    expect(box.run(['sync', '--json']).json.error.message).toContain(
      '"data/caf\\\\xe9\\\\xff.txt": its name is not valid UTF-8',
    );
    expect(sha(zip)).toBe(before);
    expect(box.run(['close', '--json']).json.error.code).toBe('UNSYNCED_CHANGES');
    expect(box.run(['close', '--force', '--json']).json.closed).toBe(true);
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual([]); // no .closing-* left behind
  });
});
