/**
 * The three-way merge's two sides (issue 28, items 3, 7 and 10): the zip's
 * side is matched by the path open gives its entries, not their raw names;
 * it passes open's checks, eager and lazy, dry run or not; and the codes say
 * what happened: a file against a folder between the sides is a conflict, a
 * change made on the zip's side only is taken, the same change on both sides
 * is none, and a zip replaced while the merge runs is a conflict to merge again.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import { waitFor } from '../helpers/wait-for.ts';
import fs from 'node:fs';
import path from 'node:path';
import { runZipfs, sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawEntries } from '../helpers/zip-compare.ts';
import { casefoldAvailable, mountCasefold, type CasefoldMount } from '../helpers/casefold-mount.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const BASE: RawEntry[] = [
  { name: 'a.txt', data: 'a\n' },
  { name: 'd/', data: '' },
  { name: 'd/b.txt', data: 'b\n' },
];

/** Opens `entries` as a zip, eagerly or lazily; returns the zip and the workspace. */
function openZip(entries: RawEntry[], lazy = false): { zip: string; root: string } {
  const zip = writeZip(box.dir, 'app.zip', rawZip(entries));
  const root = box.run(['open', zip, ...(lazy ? ['--lazy'] : []), '--json']).json.workspace_path;
  return { zip, root };
}

/** Every file of the zip as a fresh open (in its own data folder) gives it: what a user gets back. */
function reopened(zip: string): Record<string, string> {
  const home = path.join(box.dir, `check-${Math.random().toString(36).slice(2)}`);
  const opened = runZipfs(['open', zip, '--json'], { env: { ZIPFS_HOME: home } }).json;
  expect(opened.error).toBeUndefined();
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const name of fs.readdirSync(dir).sort()) {
      const at = path.join(dir, name);
      if (fs.lstatSync(at).isDirectory()) walk(at, `${prefix}${name}/`);
      else files[`${prefix}${name}`] = fs.readFileSync(at, 'utf8');
    }
  };
  walk(opened.workspace_path, '');
  fs.rmSync(home, { recursive: true, force: true });
  return files;
}

describe('the zip side is matched by the path open gives its entries', () => {
  for (const spelling of ['d\\b.txt', './d/b.txt', 'd//b.txt', 'x/../d/b.txt']) {
    for (const lazy of [false, true]) {
      it(`keeps d/b.txt when the other writer spells it ${JSON.stringify(spelling)}${lazy ? ' (lazy session)' : ''}`, () => {
        const { zip, root } = openZip(BASE, lazy);
        if (lazy) expect(box.run(['extract', 'd/b.txt']).code).toBe(0);
        fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
        fs.writeFileSync(
          zip,
          rawZip([
            { name: 'a.txt', data: 'a\n' },
            { name: 'd/', data: '' },
            { name: spelling, data: 'b\n' },
            { name: 'new.txt', data: 'n\n' },
          ]),
        );
        // Status, the dry run and the merge agree: the only change on the zip's side is new.txt.
        expect(box.run(['status', '--json']).json.zip_changed).toStrictEqual(['A new.txt']);
        expect(box.run(['sync', '--merge', '--dry-run', '--json']).json).toMatchObject({
          synced: false,
          files_modified: 1,
          from_zip: ['A new.txt'],
        });
        expect(box.run(['sync', '--merge', '--json']).json).toMatchObject({
          synced: true,
          files_modified: 1,
          files_deleted: 0,
          from_zip: ['A new.txt'],
        });
        expect(fs.readFileSync(path.join(root, 'd/b.txt'), 'utf8')).toBe('b\n');
        expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
        // The next plain sync keeps it too, and the result opens with every file.
        fs.writeFileSync(path.join(root, 'a.txt'), 'ours again\n');
        expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_modified: 1, files_deleted: 0 });
        expect(reopened(zip)).toStrictEqual({ 'a.txt': 'ours again\n', 'd/b.txt': 'b\n', 'new.txt': 'n\n' });
      });
    }
  }

  it('keeps the files of a folder whose entry the other writer dropped (the folder is then implied)', () => {
    const { zip, root } = openZip(BASE);
    fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
    fs.writeFileSync(
      zip,
      rawZip([
        { name: 'a.txt', data: 'a\n' },
        { name: 'd/b.txt', data: 'b\n' },
      ]),
    );
    expect(box.run(['sync', '--merge', '--json']).json).toMatchObject({ synced: true, from_zip: ['D d/'] });
    expect(fs.readFileSync(path.join(root, 'd/b.txt'), 'utf8')).toBe('b\n');
    expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
    expect(reopened(zip)).toStrictEqual({ 'a.txt': 'ours\n', 'd/b.txt': 'b\n' });
  });

  it('refuses, naming both, a zip with two entries at one path after normalising, and writes nothing', () => {
    const { zip, root } = openZip(BASE);
    fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
    fs.writeFileSync(zip, rawZip([...BASE, { name: './d/b.txt', data: 'other b\n' }]));
    const before = fs.readFileSync(zip);
    for (const args of [
      ['sync', '--merge', '--dry-run', '--json'],
      ['sync', '--merge', '--json'],
    ]) {
      const error = box.run(args).json.error;
      expect(error.code).toBe('ZIP_INVALID');
      expect(error.message).toContain('"d/b.txt" and "./d/b.txt"');
      expect(error.message).toContain('Nothing was written');
    }
    expect(fs.readFileSync(zip).equals(before)).toBe(true);
    expect(fs.readFileSync(path.join(root, 'd/b.txt'), 'utf8')).toBe('b\n');
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ours\n');
  });

  it('merges over MCP by path too', async () => {
    const { zip, root } = openZip(BASE);
    fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
    fs.writeFileSync(
      zip,
      rawZip([
        { name: 'a.txt', data: 'a\n' },
        { name: 'd\\', data: '' },
        { name: 'd\\b.txt', data: 'b\n' },
      ]),
    );
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_status', {})).data.zip_changed).toStrictEqual([]);
      expect((await call(mcp.client, 'zipfs_sync', { merge: true, dry_run: true })).data).toMatchObject({
        synced: false,
        from_zip: [],
      });
      expect((await call(mcp.client, 'zipfs_sync', { merge: true })).data).toMatchObject({
        synced: true,
        files_modified: 1,
        files_deleted: 0,
        from_zip: [],
      });
    } finally {
      await mcp.close();
    }
    expect(reopened(zip)).toStrictEqual({ 'a.txt': 'ours\n', 'd/b.txt': 'b\n' });
  });
});

/** `bytes` with the first occurrence of `from` replaced by `to` (same length): a damaged archive to order. */
function patched(bytes: Uint8Array, from: string, to: string): Uint8Array {
  const out = Buffer.from(bytes);
  const at = out.indexOf(from);
  if (at < 0 || from.length !== to.length) throw new Error(`cannot patch ${from}`);
  out.write(to, at);
  return new Uint8Array(out);
}

describe('the zip side passes the checks open makes, eager and lazy, dry run or not', () => {
  const TWO: RawEntry[] = [
    { name: 'a.txt', data: 'a\n' },
    { name: 'o.txt', data: 'o\n' },
  ];
  // eagerOnly: data a lazy session never reads (an entry it does not extract) is copied raw, unread: issue 28's item 9.
  const damaged: { what: string; code: string; bytes: () => Uint8Array; eagerOnly?: true }[] = [
    {
      what: 'overlapping entries',
      code: 'ZIP_BOMB_DETECTED',
      bytes: () =>
        rawZip([
          { name: 'a.txt', data: 'a'.repeat(40) },
          { name: 'o.txt', data: 'o\n', shareDataOf: 0 },
          { name: 'z.txt', data: 'z\n' },
        ]),
    },
    {
      what: 'a name that climbs out',
      code: 'PATH_TRAVERSAL',
      bytes: () => rawZip([...TWO, { name: '../escape.txt', data: 'x' }]),
    },
    {
      what: 'a local header naming another entry',
      code: 'ZIP_INVALID',
      bytes: () => patched(rawZip([...TWO, { name: 'new.txt', data: 'n\n' }]), 'new.txt', 'mew.txt'),
    },
    {
      what: 'a bad CRC-32 in an entry the merge takes',
      code: 'ZIP_INVALID',
      bytes: () => patched(rawZip([...TWO, { name: 'new.txt', data: 'hello\n', method: 0 }]), 'hello', 'jello'),
      eagerOnly: true,
    },
    {
      what: 'an entry inflating past its declared size',
      code: 'ZIP_BOMB_DETECTED',
      bytes: () => rawZip([...TWO, { name: 'new.txt', data: 'x'.repeat(5000), declaredSize: 10 }]),
      eagerOnly: true,
    },
  ];
  for (const { what, code, bytes, eagerOnly } of damaged) {
    for (const lazy of eagerOnly ? [false] : [false, true]) {
      it(`${what}: ${code}${lazy ? ' (lazy session)' : ''}, nothing written`, () => {
        const { zip, root } = openZip(TWO, lazy);
        if (lazy) expect(box.run(['extract', 'a.txt']).code).toBe(0);
        fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
        fs.writeFileSync(zip, bytes());
        const before = fs.readFileSync(zip);
        for (const args of [
          ['sync', '--merge', '--dry-run', '--json'],
          ['sync', '--merge', '--json'],
        ]) {
          const result = box.run(args);
          expect(result.code).not.toBe(70);
          expect(result.json.error.code).toBe(code);
          expect(result.json.error.message).toContain('as another writer left it');
        }
        expect(fs.readFileSync(zip).equals(before)).toBe(true);
        expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('ours\n');
        expect(fs.existsSync(path.join(root, 'new.txt'))).toBe(false);
      });
    }
  }
});

it('over MCP too: overlapping entries are ZIP_BOMB_DETECTED for the merge and its dry run, never an internal error', async () => {
  const { zip, root } = openZip([
    { name: 'a.txt', data: 'a\n' },
    { name: 'o.txt', data: 'o\n' },
  ]);
  fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
  fs.writeFileSync(
    zip,
    rawZip([
      { name: 'a.txt', data: 'a'.repeat(40) },
      { name: 'o.txt', data: 'o\n', shareDataOf: 0 },
      { name: 'z.txt', data: 'z\n' },
    ]),
  );
  const mcp = await connect(box.home);
  try {
    expect((await call(mcp.client, 'zipfs_sync', { merge: true, dry_run: true })).data.error.code).toBe(
      'ZIP_BOMB_DETECTED',
    );
    expect((await call(mcp.client, 'zipfs_sync', { merge: true })).data.error.code).toBe('ZIP_BOMB_DETECTED');
  } finally {
    await mcp.close();
  }
});

describe('the size limits open applies', () => {
  for (const lazy of [false, true]) {
    it(`hold for what the merge takes from the zip${lazy ? ' (lazy session: the entry it has on disk)' : ''}: ZIP_BOMB_DETECTED`, () => {
      const env = { ZIPFS_RATIO_FLOOR_BYTES: '1000' }; // a small bomb does
      const { zip, root } = openZip(
        [
          { name: 'a.txt', data: 'a\n' },
          { name: 'o.txt', data: 'o\n' },
        ],
        lazy,
      );
      if (lazy) expect(box.run(['extract', 'a.txt']).code).toBe(0);
      fs.writeFileSync(path.join(root, 'o.txt'), 'ours\n');
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: Buffer.alloc(400_000) },
          { name: 'o.txt', data: 'o\n' },
        ]),
      );
      for (const args of [
        ['sync', '--merge', '--dry-run', '--json'],
        ['sync', '--merge', '--json'],
      ]) {
        const error = box.run(args, { env }).json.error;
        expect(error.code).toBe('ZIP_BOMB_DETECTED');
      }
      expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a\n');
    });
  }
});

describe('merge codes', () => {
  for (const [lazy, folders] of [
    [false, true],
    [true, true],
    [false, false],
    [true, false],
  ]) {
    it(`a file on one side where the other needs a folder is CONFLICT_DETECTED, both ways${lazy ? ' (lazy session)' : ''}${folders ? '' : ' (no folder entries)'}`, () => {
      const base = folders ? BASE : BASE.filter((entry) => entry.name !== 'd/');
      const { zip, root } = openZip(base, lazy);
      // The zip adds file x; the workspace adds x/y.txt (and folder x, an entry where the archive stores folders).
      fs.mkdirSync(path.join(root, 'x'));
      fs.writeFileSync(path.join(root, 'x/y.txt'), 'y\n');
      fs.writeFileSync(zip, rawZip([...base, { name: 'x', data: 'x file\n' }]));
      let before = fs.readFileSync(zip);
      for (const args of [
        ['sync', '--merge', '--dry-run', '--json'],
        ['sync', '--merge', '--json'],
      ]) {
        const error = box.run(args).json.error;
        expect(error.code).toBe('CONFLICT_DETECTED');
        expect(error.message).toContain(
          folders
            ? '"x" (zip: added a file, workspace: added a folder)'
            : '"x" (zip: a file, workspace: a folder (for "x/y.txt"))',
        );
      }
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      // The other way round: the zip adds q/r.txt, the workspace adds file q.
      fs.rmSync(path.join(root, 'x'), { recursive: true });
      fs.writeFileSync(path.join(root, 'q'), 'q file\n');
      fs.writeFileSync(zip, rawZip([...base, { name: 'q/r.txt', data: 'r\n' }]));
      before = fs.readFileSync(zip);
      const error = box.run(['sync', '--merge', '--json']).json.error;
      expect(error.code).toBe('CONFLICT_DETECTED');
      expect(error.message).toContain('"q" (zip: a folder (for "q/r.txt"), workspace: a file)');
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      expect(fs.readFileSync(path.join(root, 'q'), 'utf8')).toBe('q file\n');
    });
  }

  for (const lazy of [false, true]) {
    it(`a file the zip made a folder, and a folder it made a file, are taken when the workspace left them alone${lazy ? ' (lazy session)' : ''}`, () => {
      const { zip, root } = openZip(
        [
          { name: 'a.txt', data: 'a\n' },
          { name: 'f', data: 'file f\n' },
          { name: 'g/', data: '' },
          { name: 'g/h.txt', data: 'h\n' },
        ],
        lazy,
      );
      if (lazy) expect(box.run(['extract', 'f', 'g/h.txt']).code).toBe(0);
      fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: 'a\n' },
          { name: 'f/', data: '' },
          { name: 'f/e.txt', data: 'e\n' },
          { name: 'g', data: 'file g\n' },
        ]),
      );
      const expected = ['A f/', 'A f/e.txt', 'A g', 'D f', 'D g/', 'D g/h.txt'];
      expect(box.run(['status', '--json']).json.zip_changed).toStrictEqual(expected);
      expect(box.run(['sync', '--merge', '--json']).json).toMatchObject({
        synced: true,
        files_modified: 1,
        from_zip: expected,
      });
      // (A lazy session takes the zip's side only where it has files on disk: f/e.txt is read from the zip.)
      expect(lazy ? box.run(['read', 'f/e.txt']).stdout : fs.readFileSync(path.join(root, 'f/e.txt'), 'utf8')).toBe(
        'e\n',
      );
      expect(fs.readFileSync(path.join(root, 'g'), 'utf8')).toBe('file g\n');
      expect(box.run(['status', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 4,
      });
      expect(reopened(zip)).toStrictEqual({ 'a.txt': 'ours\n', 'f/e.txt': 'e\n', g: 'file g\n' });
    });
  }

  it('a file the zip made a folder while the workspace changed it is a conflict saying so', () => {
    const { zip, root } = openZip([
      { name: 'a.txt', data: 'a\n' },
      { name: 'f', data: 'file f\n' },
    ]);
    fs.writeFileSync(path.join(root, 'f'), 'ours\n');
    fs.writeFileSync(
      zip,
      rawZip([
        { name: 'a.txt', data: 'a\n' },
        { name: 'f/e.txt', data: 'e\n' },
      ]),
    );
    const error = box.run(['sync', '--merge', '--json']).json.error;
    expect(error.code).toBe('CONFLICT_DETECTED');
    expect(error.message).toContain('"f" (zip: made it a folder, workspace: modified)');
  });

  it('the same rename on both sides is no conflict, whether the zip dropped the old name or kept a copy', () => {
    for (const keepCopy of [false, true]) {
      const { zip, root } = openZip([
        { name: 'a.txt', data: 'a\n' },
        { name: 'keep.txt', data: 'kept bytes\n' },
      ]);
      fs.renameSync(path.join(root, 'keep.txt'), path.join(root, 'kept.txt'));
      fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: 'a\n' },
          ...(keepCopy ? [{ name: 'keep.txt', data: 'kept bytes\n' }] : []),
          { name: 'kept.txt', data: 'kept bytes\n' },
        ]),
      );
      const merged = box.run(['sync', '--merge', '--json']).json;
      expect(merged).toMatchObject({
        synced: true,
        files_modified: 1,
        from_zip: keepCopy ? ['A kept.txt'] : ['A kept.txt', 'D keep.txt'],
      });
      // Counted once, on the zip's side, when the zip made the whole rename.
      expect(merged.files_renamed).toBe(keepCopy ? 1 : undefined);
      expect(reopened(zip)).toStrictEqual({ 'a.txt': 'ours\n', 'kept.txt': 'kept bytes\n' });
      expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
      expect(box.run(['close', '--json']).code).toBe(0);
    }
  });

  it('the same rename through another zipfs session, over MCP', async () => {
    const { zip, root } = openZip([
      { name: 'a.txt', data: 'a\n' },
      { name: 'keep.txt', data: 'kept bytes\n' },
    ]);
    const theirs = box.run(['open', zip, '--name', 'theirs', '--json']).json.workspace_path;
    fs.renameSync(path.join(theirs, 'keep.txt'), path.join(theirs, 'kept.txt'));
    expect(box.run(['sync', 'theirs', '--json']).json).toMatchObject({ synced: true, files_renamed: 1 });
    fs.renameSync(path.join(root, 'keep.txt'), path.join(root, 'kept.txt'));
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_sync', { session: 'app', merge: true })).data).toMatchObject({
        synced: true,
        from_zip: ['A kept.txt', 'D keep.txt'],
      });
    } finally {
      await mcp.close();
    }
    expect(reopened(zip)).toStrictEqual({ 'a.txt': 'a\n', 'kept.txt': 'kept bytes\n' });
  });
});

describe('a zip replaced while a merge runs', () => {
  const ROUNDS = 20;
  it.skipIf(process.platform !== 'linux')(
    `is CONFLICT_DETECTED saying to merge again, never SYNC_FAILED or a mixed archive (${ROUNDS} merges against a swap loop; Linux: renameat2)`,
    async () => {
      const random = (bytes: number) => new Uint8Array(Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))));
      const { zip, root } = openZip([
        { name: 'a.txt', data: 'a\n' },
        { name: 'big.bin', data: random(1 << 20), method: 0 },
      ]);
      fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
      // Two other versions of the zip, of different layouts, swapped into its place over and over.
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: 'a\n' },
          { name: 'big.bin', data: random(3 << 20), method: 0 },
          { name: 'from-a.txt', data: 'A\n' },
        ]),
      );
      const other = writeZip(
        box.dir,
        'other.zip',
        rawZip([
          { name: 'from-b.txt', data: 'B\n' },
          { name: 'a.txt', data: 'a\n' },
          { name: 'big.bin', data: random(2 << 20), method: 0 },
        ]),
      );
      const swapper = Bun.spawn([process.execPath, path.join(import.meta.dir, '../helpers/swap-loop.ts'), zip, other], {
        stdout: 'pipe',
      });
      const codes: Record<string, number> = {};
      try {
        // The merges race the loop from the first: it runs once the zip's path holds the other file.
        const before = fs.statSync(zip).ino;
        await waitFor(() => fs.statSync(zip).ino !== before || swapper.exitCode !== null, { what: 'a first exchange' });
        expect(swapper.exitCode).toBeNull();
        for (let round = 0; round < ROUNDS; round++) {
          const result = box.run(['sync', '--merge', '--no-backup', '--json'], { timeoutMs: 30_000 });
          const code = result.json?.error?.code ?? (result.json?.synced ? 'synced' : `exit ${result.code}`);
          codes[code] = (codes[code] ?? 0) + 1;
          if (code === 'CONFLICT_DETECTED' && result.json.error.message.includes('while this merge'))
            expect(result.json.error.message).toContain('Sync with --merge again');
        }
      } finally {
        swapper.kill('SIGTERM');
        await swapper.exited;
      }
      console.log(`merges against a swap loop: ${JSON.stringify(codes)}`);
      expect(Number((await new Response(swapper.stdout).text()).trim())).toBeGreaterThan(ROUNDS); // the race really ran
      expect(Object.keys(codes).filter((code) => code !== 'CONFLICT_DETECTED' && code !== 'synced')).toStrictEqual([]);
      // Once the other program is done, the merge goes through and the result opens whole.
      expect(box.run(['sync', '--merge', '--no-backup', '--json']).json.synced).toBe(true);
      const files = reopened(zip);
      // Ours, unless a merge went through meanwhile: then the other program's older copy put back was its change.
      expect(files['a.txt']).toBe(codes.synced ? fs.readFileSync(path.join(root, 'a.txt'), 'utf8') : 'ours\n');
      // The workspace is the new zip: its big.bin is the zip's, byte for byte, and status is clean.
      expect(
        rawEntries(zip)
          .entries.get('big.bin')!
          .content.equals(fs.readFileSync(path.join(root, 'big.bin'))),
      ).toBe(true);
      expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
    },
  );
});

describe('in a workspace folder that does not tell case apart (casefold-fs)', () => {
  const available = casefoldAvailable();
  let mount: CasefoldMount | undefined;
  beforeAll(async () => {
    if (!available.skip) mount = await mountCasefold();
  });
  afterAll(() => mount?.unmount());
  /** A zip and a data folder on the mount, opened. */
  const openOnMount = (entries: RawEntry[]) => {
    const dir = fs.mkdtempSync(path.join(mount!.path, 't-'));
    const env = { ZIPFS_HOME: path.join(dir, 'home') };
    const zip = path.join(dir, 'app.zip');
    fs.writeFileSync(zip, rawZip(entries));
    const root = runZipfs(['open', zip, '--json'], { env }).json.workspace_path;
    return { zip, root, run: (args: string[]) => runZipfs(args, { env }) };
  };

  it.skipIf(available.skip)(
    `two spellings of one path, one from each side, are CONFLICT_DETECTED, not one written over the other${available.why}`,
    () => {
      const { zip, root, run } = openOnMount([{ name: 'a.txt', data: 'a\n' }]);
      fs.writeFileSync(path.join(root, 'readme.md'), 'ours\n');
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: 'a\n' },
          { name: 'README.md', data: 'theirs\n' },
        ]),
      );
      const before = fs.readFileSync(zip);
      const error = run(['sync', '--merge', '--json']).json.error;
      expect(error.code).toBe('CONFLICT_DETECTED');
      expect(error.message).toContain('"README.md" (zip: a file, workspace: a file "readme.md")');
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      expect(fs.readFileSync(path.join(root, 'readme.md'), 'utf8')).toBe('ours\n');
    },
  );

  it.skipIf(available.skip)(
    `a folder the other writer respelled in another case keeps its files${available.why}`,
    () => {
      const { zip, root, run } = openOnMount([
        { name: 'a.txt', data: 'a\n' },
        { name: 'Docs/', data: '' },
        { name: 'Docs/b.txt', data: 'b\n' },
      ]);
      fs.writeFileSync(path.join(root, 'a.txt'), 'ours\n');
      fs.writeFileSync(
        zip,
        rawZip([
          { name: 'a.txt', data: 'a\n' },
          { name: 'docs/', data: '' },
          { name: 'docs/b.txt', data: 'b\n' },
        ]),
      );
      expect(run(['sync', '--merge', '--json']).json).toMatchObject({ synced: true, files_modified: 1 });
      expect(fs.readFileSync(path.join(root, 'docs/b.txt'), 'utf8')).toBe('b\n');
      expect(run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
      expect(rawEntries(zip).order).toStrictEqual(['a.txt', 'docs/', 'docs/b.txt']);
    },
  );
});
