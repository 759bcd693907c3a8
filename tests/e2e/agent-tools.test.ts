/**
 * The tools agents need beyond whole-file reads and writes: edit (checked
 * against what was read), read by lines, diff against the archive, move,
 * inspect before opening, and open --create. Each through the CLI and the
 * SDK's Client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, writeZip, type sandbox } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => ({ box, zip, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

const file = (relative: string) => path.join(root, relative);
const sha = (relative: string) => new Bun.CryptoHasher('sha256').update(fs.readFileSync(file(relative))).digest('hex');

describe('zipfs edit', () => {
  it('replaces text that matches once and returns the new hash, size, count and a diff', () => {
    const result = box.run(['edit', 'data/config.json', '--old', '"debug": true', '--new', '"debug": false', '--json']);
    expect(result.json).toMatchObject({
      replacements: 1,
      size_bytes: fs.statSync(file('data/config.json')).size,
      sha256: sha('data/config.json'),
    });
    expect(result.json.diff).toContain('-  "debug": true,\n+  "debug": false,');
    expect(fs.readFileSync(file('data/config.json'), 'utf8')).toContain('"debug": false');
  });

  it(
    'writes nothing when an edit matches no times or several, ' + 'saying which edit and why (EDIT_MISMATCH, exit 19)',
    () => {
      const before = fs.readFileSync(file('data/input.csv'), 'utf8');
      const none = box.run(['edit', 'data/input.csv', '--old', 'absent', '--new', 'x', '--json']);
      expect(none.code).toBe(ERROR_CODES.EDIT_MISMATCH.exit);
      expect(none.json.error.message).toContain('is not in');
      const twice = box.run(['edit', 'data/input.csv', '--old', '0\n', '--new', 'x\n', '--json']);
      expect(twice.json.error.message).toMatch(/is in "data\/input.csv" 2 times.*--replace-all/);
      expect(fs.readFileSync(file('data/input.csv'), 'utf8')).toBe(before);
      expect(
        box.run(['edit', 'data/input.csv', '--old', '0\n', '--new', '5\n', '--replace-all', '--json']).json
          .replacements,
      ).toBe(2);
    },
  );

  it('applies several edits in order from --edits-file, and writes nothing when the second fails', () => {
    const edits = path.join(box.dir, 'edits.json');
    fs.writeFileSync(
      edits,
      JSON.stringify([
        { old_text: 'id,value', new_text: 'id,amount' },
        { old_text: 'missing', new_text: 'x' },
      ]),
    );
    const before = fs.readFileSync(file('data/input.csv'), 'utf8');
    const failed = box.run(['edit', 'data/input.csv', '--edits-file', edits, '--json']);
    expect(failed.json.error.message).toContain('Edit 2 of 2');
    expect(fs.readFileSync(file('data/input.csv'), 'utf8')).toBe(before);
    fs.writeFileSync(
      edits,
      JSON.stringify([
        { old_text: 'id,value', new_text: 'id,amount' },
        { old_text: 'amount', new_text: 'total' },
      ]),
    );
    expect(box.run(['edit', 'data/input.csv', '--edits-file', edits, '--json']).json.replacements).toBe(2);
    expect(fs.readFileSync(file('data/input.csv'), 'utf8')).toStartWith('id,total\n');
  });

  it('keeps CRLF line endings and a missing final newline, and matches LF snippets in a CRLF file', () => {
    fs.writeFileSync(file('win.txt'), 'one\r\ntwo\r\nthree');
    const result = box.run(['edit', 'win.txt', '--old', 'two\nthree', '--new', '2\n3', '--json']);
    expect(result.json.replacements).toBe(1);
    expect(fs.readFileSync(file('win.txt'), 'utf8')).toBe('one\r\n2\r\n3');
    expect(result.json.diff).toContain('\\ No newline at end of file');
  });

  it('previews with --dry-run, and refuses a stale hash (CONFLICT_DETECTED) without writing', () => {
    const before = fs.readFileSync(file('README.txt'), 'utf8');
    const preview = box.run([
      'edit',
      'README.txt',
      '--old',
      'Quarterly',
      '--new',
      'Annual',
      '--dry-run',
      '--json',
    ]).json;
    expect(preview.diff).toContain('+Annual report');
    expect(fs.readFileSync(file('README.txt'), 'utf8')).toBe(before);
    const stale = box.run([
      'edit',
      'README.txt',
      '--old',
      'Quarterly',
      '--new',
      'Annual',
      '--expected-sha256',
      'ab'.repeat(32),
      '--json',
    ]);
    expect(stale.json.error.code).toBe('CONFLICT_DETECTED');
    expect(
      box.run([
        'edit',
        'README.txt',
        '--old',
        'Quarterly',
        '--new',
        'Annual',
        '--expected-sha256',
        sha('README.txt'),
        '--json',
      ]).json.replacements,
    ).toBe(1);
    expect(box.run(['edit', 'logo.png', '--old', 'x', '--new', 'y', '--json']).json.error.message).toContain(
      'is binary',
    );
  });

  it('works over MCP with the hash read returned', async () => {
    const mcp = await connect(box.home);
    try {
      const read = await call(mcp.client, 'zipfs_read', { path: 'README.txt' });
      const edited = await call(mcp.client, 'zipfs_edit', {
        path: 'README.txt',
        edits: [{ old_text: 'report', new_text: 'review' }],
        expected_sha256: read.data.sha256,
      });
      expect(edited.data.replacements).toBe(1);
      const again = await call(mcp.client, 'zipfs_edit', {
        path: 'README.txt',
        edits: [{ old_text: 'review', new_text: 'x' }],
        expected_sha256: read.data.sha256,
      });
      expect(again.data.error.code).toBe('CONFLICT_DETECTED');
      const twice = await call(mcp.client, 'zipfs_edit', {
        path: 'data/input.csv',
        edits: [{ old_text: '0\n', new_text: '' }],
      });
      expect(twice.data.error.message).toContain('replace_all: true');
    } finally {
      await mcp.close();
    }
  });
});

describe('zipfs read by lines', () => {
  beforeEach(() =>
    fs.writeFileSync(file('lines.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'),
  );

  it.each([
    [['--start-line', '1', '--end-line', '2'], 'line 1\nline 2\n', 1, 2],
    [['--start-line', '29'], 'line 29\nline 30\n', 29, 30],
    [['--start-line', '-3'], 'line 28\nline 29\nline 30\n', 28, 30],
    [['--start-line', '-2', '--end-line', '-2'], 'line 29\n', 29, 29],
    [['--start-line', '28', '--end-line', '99'], 'line 28\nline 29\nline 30\n', 28, 30],
  ])('%p', (args, content, start, end) => {
    const out = box.run(['read', 'lines.txt', ...args, '--json']).json;
    expect(out).toMatchObject({ content, total_lines: 30, start_line: start, end_line: end, sha256: sha('lines.txt') });
  });

  it(
    'refuses lines mixed with bytes, line 0, and line reads ' + 'of binary files; every read returns the file hash',
    async () => {
      expect(box.run(['read', 'lines.txt', '--start-line', '1', '--offset', '3', '--json']).json.error.code).toBe(
        'INVALID_INPUT',
      );
      expect(box.run(['read', 'lines.txt', '--start-line', '0', '--json']).json.error.code).toBe('INVALID_INPUT');
      // A range that holds no line is an error, never an empty page that reads as an empty file.
      expect(box.run(['read', 'lines.txt', '--start-line', '31', '--json']).json.error.message).toContain(
        'has 30 lines, so line 31 is past its end',
      );
      expect(box.run(['read', 'lines.txt', '--start-line', '5', '--end-line', '4', '--json']).json.error.code).toBe(
        'INVALID_INPUT',
      );
      expect(box.run(['read', 'logo.png', '--start-line', '1', '--json']).json.error.message).toContain('is binary');
      const mcp = await connect(box.home);
      try {
        const page = await call(mcp.client, 'zipfs_read', { path: 'lines.txt', start_line: -1 });
        expect(page.data).toMatchObject({
          content: 'line 30\n',
          total_lines: 30,
          start_line: 30,
          end_line: 30,
          sha256: sha('lines.txt'),
        });
        expect((await call(mcp.client, 'zipfs_read', { path: 'logo.png', limit: 10 })).data.sha256).toBe(
          sha('logo.png'),
        );
      } finally {
        await mcp.close();
      }
    },
  );
});

describe('zipfs diff', () => {
  it('diffs modified, added, deleted, binary and renamed files against the archive', () => {
    fs.writeFileSync(file('README.txt'), 'Quarterly report, reviewed\n');
    fs.writeFileSync(file('new.txt'), 'brand new\n');
    fs.rmSync(file('data/output.csv'));
    fs.writeFileSync(file('logo.png'), Buffer.from([0, 1, 2, 3]));
    fs.renameSync(file('data/input.csv'), file('data/renamed.csv'));
    const out = box.run(['diff', '--json']).json;
    expect(out.files).toStrictEqual([
      { path: 'README.txt', status: 'modified', binary: false, additions: 1, deletions: 1 },
      { path: 'data/output.csv', status: 'deleted', binary: false, additions: 0, deletions: 2 },
      {
        path: 'data/renamed.csv',
        status: 'renamed',
        from: 'data/input.csv',
        binary: false,
        additions: 0,
        deletions: 0,
      },
      { path: 'logo.png', status: 'modified', binary: true, additions: 0, deletions: 0 },
      { path: 'new.txt', status: 'added', binary: false, additions: 1, deletions: 0 },
    ]);
    expect(out.diff).toContain(
      '--- a/README.txt\n+++ b/README.txt\n@@ -1 +1 @@\n-Quarterly report\n+Quarterly report, reviewed\n',
    );
    expect(out.diff).toContain('--- /dev/null\n+++ b/new.txt');
    expect(out.diff).toContain('Binary files a/logo.png and b/logo.png differ');
    expect(out.truncated).toBe(false);
    expect(out.diff).toContain(
      'diff --git a/data/input.csv b/data/renamed.csv\nrename from data/input.csv\nrename to data/renamed.csv\n',
    );
    expect(box.run(['diff', 'data', '--json']).json.files.map((f: { path: string }) => f.path)).toStrictEqual([
      'data/output.csv',
      'data/renamed.csv',
    ]);
    const stat = box.run(['diff', '--stat', '--exit-code']);
    expect(stat.code).toBe(1);
    expect(stat.stdout).toContain('M README.txt  +1 -1');
    expect(stat.stdout).toContain('R data/input.csv -> data/renamed.csv');
    expect(stat.stdout).toContain('5 files changed');
  });

  it('says the zip changed instead of diffing against the wrong base; exits 0 with no changes', async () => {
    expect(box.run(['diff', '--exit-code']).code).toBe(0);
    fs.writeFileSync(file('README.txt'), 'changed\n');
    // Rewritten in place: the session's base.zip (a link to the same file) changed too, so no base is left.
    fs.appendFileSync(zip, 'rewritten elsewhere');
    expect(box.run(['diff', '--json']).json.error.code).toBe('CONFLICT_DETECTED');
    const mcp = await connect(box.home);
    try {
      const refused = (await call(mcp.client, 'zipfs_diff', {})).data.error.message;
      expect(refused).toContain('keeps no copy of the base');
      expect(refused).toContain('zipfs_diff with against: "zip"'); // the call that works instead
    } finally {
      await mcp.close();
    }
  });
});

describe('zipfs mv', () => {
  it('moves into a new folder, refuses to overwrite unless asked, and stays inside the workspace', async () => {
    expect(box.run(['mv', 'README.txt', 'docs/readme.txt', '--json']).json).toStrictEqual({
      moved: true,
      from: 'README.txt',
      to: 'docs/readme.txt',
    });
    expect(fs.existsSync(file('docs/readme.txt'))).toBe(true);
    const refused = box.run(['move', 'data/input.csv', 'data/output.csv', '--json']);
    expect(refused.json.error.message).toContain('pass --overwrite');
    expect(box.run(['move', 'data/input.csv', 'data/output.csv', '--overwrite', '--json']).json.moved).toBe(true);
    expect(fs.readFileSync(file('data/output.csv'), 'utf8')).toBe('id,value\n1,10\n2,20\n');
    expect(box.run(['mv', 'data', 'data/inner', '--json']).json.error.message).toContain('cannot move into itself');
    expect(box.run(['mv', 'logo.png', '../outside.png', '--json']).json.error.code).toBe('PATH_TRAVERSAL');
    expect(box.run(['mv', 'missing', 'x', '--json']).json.error.code).toBe('PATH_NOT_FOUND');
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_move', { from: 'logo.png', to: 'img/logo.png' })).data.to).toBe(
        'img/logo.png',
      );
    } finally {
      await mcp.close();
    }
    // Moves are renames; their new folders get folder entries, as this archive keeps them.
    const moved = box.run(['status', '--json']).json;
    expect(moved.renamed).toContainEqual({ from: 'logo.png', to: 'img/logo.png' });
    expect(moved.added).toStrictEqual(['docs/', 'img/']);
  });
});

describe('zipfs inspect', () => {
  it('lists entries, totals and the comment of a zip, from the central directory, without a session', async () => {
    const out = box.run(['inspect', zip, '--max-entries', '3', '--json']).json;
    expect(out.total_entries).toBe(9);
    expect(out.entries).toHaveLength(3);
    expect(out.entries[0]).toMatchObject({ name: 'README.txt', type: 'file', size: 17, method: 'deflate' });
    expect(out.warnings).toStrictEqual([]);
    expect(
      box.run(['inspect', zip, '--start', '8', '--json']).json.entries.map((e: { name: string }) => e.name),
    ).toStrictEqual(['empty/']);
    const mcp = await connect(box.home);
    try {
      expect((await call(mcp.client, 'zipfs_inspect', { path: zip })).data.total_entries).toBe(9);
    } finally {
      await mcp.close();
    }
  });

  it('warns of everything open would refuse or guard, extracting nothing', () => {
    const hostile = writeZip(
      box.dir,
      'hostile.zip',
      rawZip([
        { name: '../../etc/passwd', data: 'x' },
        { name: 'secret.bin', data: 'x', flags: 0x41 }, // strong encryption: refused
        { name: 'link', data: '/etc/shadow', unixMode: 0o120777 },
        { name: 'bomb.txt', data: 'a'.repeat(30 << 20) },
        { name: 'shared.txt', shareDataOf: 0 },
      ]),
    );
    const before = fs.readdirSync(path.join(box.home, 'workspaces'));
    const { warnings } = box.run(['inspect', hostile, '--json']).json;
    expect(warnings[0]).toMatch(/^open would refuse it \(PATH_TRAVERSAL\)/);
    const all = warnings.join('\n');
    expect(all).toContain('climbs out of the archive root');
    expect(all).toContain('is encrypted');
    expect(all).toContain('is a symbolic link');
    expect(all).toMatch(/"bomb.txt" expands \d+:1/);
    expect(all).toContain('overlap');
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual(before);
    expect(box.run(['inspect', path.join(box.dir, 'missing.zip'), '--json']).json.error.code).toBe('ZIP_NOT_FOUND');
  });
});

describe('zipfs open --create', () => {
  it.skipIf(needs('unzip').skip)(
    `opens an empty session for a new zip; the first sync writes it${needs('unzip').why}`,
    async () => {
      const fresh = path.join(box.dir, 'fresh.zip');
      expect(box.run(['open', fresh, '--json']).json.error.message).toContain('--create');
      const opened = box.run(['open', fresh, '--create', '--json']).json;
      expect(opened).toMatchObject({ name: 'fresh', file_count: 0 });
      expect(fs.existsSync(fresh)).toBe(false);
      box.run(['write', 'hello.txt', 'hello', '-s', 'fresh']);
      expect(box.run(['sync', 'fresh', '--json']).json).toMatchObject({
        synced: true,
        files_added: 1,
        backup_path: null,
      });
      expect(Bun.spawnSync(['unzip', '-tq', fresh]).exitCode).toBe(0);
      expect(box.run(['status', 'fresh', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 1,
      });
      // Folders on the way that do not exist yet are made by the first sync; a file on the way is refused.
      const nested = path.join(box.dir, 'no-such-folder', 'deeper', 'x.zip');
      expect(box.run(['open', nested, '--create', '--json']).json.file_count).toBe(0);
      expect(fs.existsSync(path.join(box.dir, 'no-such-folder'))).toBe(false);
      box.run(['write', 'x.txt', 'x', '-s', 'x']);
      expect(box.run(['sync', 'x', '--json']).json).toMatchObject({ synced: true, files_added: 1 });
      expect(fs.statSync(nested).isFile()).toBe(true);
      expect(
        box.run(['open', path.join(box.dir, 'fresh.zip', 'inner.zip'), '--create', '--json']).json.error.code,
      ).toBe('ZIP_NOT_FOUND');
      const mcp = await connect(box.home);
      try {
        const other = path.join(box.dir, 'other.zip');
        expect((await call(mcp.client, 'zipfs_open', { path: other, create: true })).data.file_count).toBe(0);
        expect((await call(mcp.client, 'zipfs_sync', { session: 'other' })).data.synced).toBe(true);
      } finally {
        await mcp.close();
      }
      expect(fs.statSync(path.join(box.dir, 'other.zip')).size).toBe(22); // an empty zip: just the end record
    },
  );
});
