/**
 * The real Windows binary (dist/windows-x64/zipfs.exe) under Wine, driven as a
 * Windows user or script would: Windows paths, a Windows data folder, exit codes,
 * output, and the archive it writes checked from the Linux side. The second block
 * holds what Windows does differently from Linux (names it cannot hold, a
 * case-insensitive file system, files other programs hold open, the data folder)
 * as the behaviour zipfs should have (issue 20). Skipped, with the reason in the
 * suite's name, where Wine or mingw-w64 is missing (.ci/run installs them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import pkg from '../../package.json' with { type: 'json' };
import { quoted } from '../../src/format/quote-name.ts';
import { writeZip, type RunResult } from '../helpers/cli.ts';
import { binaryBytes, MTIME, REPORT_FILES, reportsZip } from '../helpers/fixtures.ts';
import { needs } from '../helpers/tools.ts';
import { caseOnlyRenameWorks, holdOpen, mcpCalls, runExe, toWindows, wine, wineSandbox } from '../helpers/wine.ts';
import { infoZip, pythonRead, sha } from '../helpers/zip-compare.ts';

const borrowed = needs('python3', 'unzip');
/** Each zipfs.exe call starts a Windows process under Wine (0.1-0.7 s): a test makes up to 25. */
const TIMEOUT = 120_000;
const skip = wine.skip || borrowed.skip;
const why = wine.skip ? wine.why : borrowed.why;

let box: ReturnType<typeof wineSandbox>;
beforeEach(() => (box = wineSandbox()));
afterEach(() => box.cleanup());

/** An archive of these files (name -> text), written into the sandbox; returns its Linux path. */
function archive(name: string, files: Record<string, string>): string {
  return writeZip(
    box.dir,
    name,
    zipSync(Object.fromEntries(Object.entries(files).map(([entry, text]) => [entry, strToU8(text)])), { mtime: MTIME }),
  );
}

/** Runs `call` while another Windows program holds `file` open, and lets go of it afterwards. */
async function whileHeld<T>(file: string, share: 'none' | 'read', call: () => T): Promise<T> {
  const holder = await holdOpen(file, share);
  try {
    return call();
  } finally {
    await holder.release();
  }
}

/** What is in the data folder's workspaces/ (sessions, and staging folders an open left behind). */
const workspaces = () =>
  fs.existsSync(path.join(box.home, 'workspaces')) ? fs.readdirSync(path.join(box.home, 'workspaces')) : [];

/** Every file below a folder, as relative paths with "/" (the Linux side's view of a workspace). */
function filesBelow(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      found[path.relative(dir, path.join(entry.parentPath, entry.name))] = fs.readFileSync(
        path.join(entry.parentPath, entry.name),
        'utf8',
      );
  }
  return found;
}

describe.skipIf(skip)(`zipfs.exe under Wine${why}`, () => {
  it(
    'runs a whole session as a Windows user would: open, ls, read, write, edit, mv, delete, grep, status, diff, ' +
      'sync, close',
    () => {
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const original = fs.readFileSync(zip);
      expect(box.run(['--version']).stdout.trim()).toBe(pkg.version);

      const opened = box.run(['open', toWindows(zip), '--json']);
      expect(opened.code).toBe(0);
      expect(opened.json).toMatchObject({
        name: 'reports',
        workspace_path: `${toWindows(box.home)}\\workspaces\\reports\\contents`,
        file_count: 6,
      });
      const workspace = path.join(box.home, 'workspaces', 'reports', 'contents');

      expect(
        box
          .run(['ls', '--json'])
          .json.entries.map((entry: { name: string }) => entry.name)
          .sort(),
      ).toStrictEqual(['README.txt', 'data/', 'empty/', 'logo.png']);
      expect(box.run(['read', 'README.txt']).stdout).toBe(REPORT_FILES['README.txt']); // no \r\n added on the way out
      expect(Buffer.from(box.run(['read', 'logo.png', '--json']).json.content, 'base64')).toStrictEqual(
        Buffer.from(binaryBytes(3000)),
      );

      expect(box.run(['write', 'notes.txt', 'reviewed on Windows']).code).toBe(0);
      // Content from stdin keeps its bytes, \r\n included (Wine reads a file as stdin, not a Linux pipe).
      expect(box.run(['write', 'data/crlf.txt'], { stdin: 'one\r\ntwo\r\n' }).code).toBe(0);
      expect(fs.readFileSync(path.join(workspace, 'data', 'crlf.txt'), 'utf8')).toBe('one\r\ntwo\r\n');
      // An argument with spaces and quotes survives Windows's command line and its parsing.
      const edited = box.run(['edit', 'data/config.json', '--old', '"debug": true', '--new', '"debug": false']);
      expect(edited.code).toBe(0);
      expect(edited.stdout).toContain('+  "debug": false');
      expect(box.run(['mv', 'data/input.csv', 'data/archive/input.csv']).code).toBe(0);
      expect(box.run(['delete', 'data/output.csv']).code).toBe(0);

      const grep = box.run(['grep', 'region']);
      expect(grep.code).toBe(0);
      expect(grep.stdout).toContain('data/config.json:3:');
      expect(box.run(['status', '--json']).json).toMatchObject({
        modified: ['data/config.json'],
        added: ['data/crlf.txt', 'notes.txt'],
        deleted: ['data/output.csv'],
        renamed: [{ from: 'data/input.csv', to: 'data/archive/input.csv' }],
      });
      const diff = box.run(['diff']);
      expect(diff.stdout).toContain('-  "debug": true');
      expect(diff.stdout).toContain('+  "debug": false');

      const synced = box.run(['sync', '--json']);
      expect(synced.code).toBe(0);
      expect(synced.json).toMatchObject({
        synced: true,
        backup_path: `${toWindows(zip)}.bak`,
        files_modified: 1,
        files_added: 2,
        files_deleted: 1,
        files_renamed: 1,
      });

      // The archive written on Windows, read on Linux: whole, names with "/", the old one kept as the backup.
      expect(infoZip(zip).test).toBe(0);
      const read = pythonRead(zip);
      expect(read.names.filter((name) => !name.endsWith('/')).sort()).toStrictEqual([
        'README.txt',
        'data/archive/2024.csv',
        'data/archive/input.csv',
        'data/config.json',
        'data/crlf.txt',
        'logo.png',
        'notes.txt',
      ]);
      expect(read.names.every((name) => !name.includes('\\'))).toBe(true);
      expect(Buffer.from(read.contents['data/config.json']!, 'hex').toString()).toContain('"debug": false');
      expect(Buffer.from(read.contents['data/crlf.txt']!, 'hex').toString()).toBe('one\r\ntwo\r\n');
      expect(Buffer.from(read.contents['data/archive/input.csv']!, 'hex').toString()).toBe(
        REPORT_FILES['data/input.csv'],
      );
      expect(fs.readFileSync(`${zip}.bak`)).toStrictEqual(original);

      expect(box.run(['close', '--json']).json).toMatchObject({ closed: true, name: 'reports' });
      expect(box.run(['sessions', '--json']).json.sessions).toStrictEqual([]);
      expect(workspaces()).toStrictEqual([]);
    },
    TIMEOUT,
  );

  it(
    "serves MCP to a Windows-side client (the SDK's Client spawning zipfs.exe mcp over Windows pipes)",
    () => {
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const transcript = mcpCalls({ ZIPFS_HOME: toWindows(box.home) }, [
        { name: 'zipfs_open', arguments: { path: toWindows(zip) } },
        { name: 'zipfs_read', arguments: { path: 'data/config.json' } },
        {
          name: 'zipfs_edit',
          arguments: {
            path: 'data/config.json',
            edits: [{ old_text: '"region": "emea"', new_text: '"region": "apac"' }],
          },
        },
        { name: 'zipfs_write', arguments: { path: 'docs/mcp.txt', content: 'written over MCP' } },
        { name: 'zipfs_status', arguments: {} },
        { name: 'zipfs_sync', arguments: {} },
        { name: 'zipfs_close', arguments: {} },
      ]);
      expect(transcript.server).toMatchObject({ name: 'zipfs', version: pkg.version });
      expect(transcript.tools).toEqual(
        expect.arrayContaining(['zipfs_open', 'zipfs_read', 'zipfs_sync', 'zipfs_close']),
      );
      expect(transcript.results.map((result) => result.isError ?? false)).toStrictEqual([
        false,
        false,
        false,
        false,
        false,
        false,
        false,
      ]);
      const [opened, read, , , status, synced, closed] = transcript.results.map((result) => result.structuredContent);
      expect(opened).toMatchObject({
        name: 'reports',
        workspace_path: `${toWindows(box.home)}\\workspaces\\reports\\contents`,
      });
      expect(read.content).toBe(REPORT_FILES['data/config.json']);
      // docs/: the archive keeps folder entries
      expect(status).toMatchObject({ modified: ['data/config.json'], added: ['docs/', 'docs/mcp.txt'], deleted: [] });
      expect(synced).toMatchObject({ synced: true, backup_path: `${toWindows(zip)}.bak` });
      expect(closed).toMatchObject({ closed: true });

      expect(infoZip(zip).test).toBe(0);
      const contents = pythonRead(zip).contents;
      expect(Buffer.from(contents['docs/mcp.txt']!, 'hex').toString()).toBe('written over MCP');
      expect(Buffer.from(contents['data/config.json']!, 'hex').toString()).toContain('"region": "apac"');
    },
    TIMEOUT,
  );
});

// Issue 20: each case below is what zipfs should do on Windows; they fail until src/ implements them.
describe.skipIf(skip)(`windows behaviour (issue 20)${why}`, () => {
  // issue 20: names Windows cannot hold are refused at open, before anything is extracted.
  const unholdable = [
    'x?.txt',
    'a<b',
    'ab:c.txt',
    'ctl\x01.txt',
    'trailing.',
    'trailing ',
    'CON',
    'nul.txt',
    'COM1.log',
  ];
  it.each(unholdable.map((name) => [quoted(name), name]))(
    'open refuses an archive with the entry %s (ZIP_INVALID naming it, nothing extracted)',
    (_shown, name) => {
      const zip = archive('names.zip', { 'ok.txt': 'fine\n', [name]: 'cannot be a Windows file\n' });
      const result = box.run(['open', toWindows(zip), '--json']);
      expect(result.json?.error?.code).toBe('ZIP_INVALID');
      expect(result.code).toBe(7);
      expect(result.json.error.message).toContain(quoted(name));
      expect(workspaces()).toStrictEqual([]); // no session folder, no staging folder left
      // `ab:c.txt` must never become the alternate data stream c.txt of a file `ab` (nor a file of its own).
      expect(
        fs
          .readdirSync(box.dir, { recursive: true })
          .map(String)
          .filter((made) => /(^|\/)ab(:|$)/.test(made)),
      ).toStrictEqual([]);
    },
    TIMEOUT,
  );

  // issue 20: on a case-insensitive file system, "Docs" is the folder "docs" itself: replacing
  // the destination (--overwrite) must not delete the source.
  it(
    'mv docs Docs --overwrite (a case-only rename of a folder) keeps every file',
    () => {
      const files = { 'docs/a.txt': 'alpha\n', 'docs/b.txt': 'beta\n', 'docs/sub/c.txt': 'gamma\n' };
      const zip = archive('case.zip', files);
      expect(box.run(['open', toWindows(zip), '--json']).code).toBe(0);
      const workspace = path.join(box.home, 'workspaces', 'case', 'contents');
      const moved = box.run(['mv', 'docs', 'Docs', '--overwrite', '--json']);
      // No data loss first, whatever mv answered: the three files, under docs/ or Docs/.
      const kept = Object.fromEntries(
        Object.entries(filesBelow(workspace)).map(([name, text]) => [name.replace(/^Docs\//, 'docs/'), text]),
      );
      expect(kept).toStrictEqual(files);
      expect(moved.json?.error).toBeUndefined();
      expect(moved.code).toBe(0);
      if (caseOnlyRenameWorks()) expect(fs.readdirSync(workspace)).toStrictEqual(['Docs']);
      else
        console.warn(
          'windows-wine: this Wine renames nothing on a case-only rename (Wine 8.0 reports success and keeps the ' +
            'name): the check that the folder is now "Docs" is skipped',
        );
    },
    TIMEOUT,
  );

  // issue 20: a case-only rename of a file is a rename, not "the destination exists".
  it(
    'mv a.txt A.txt renames the file',
    () => {
      const zip = archive('case.zip', { 'a.txt': 'alpha\n' });
      expect(box.run(['open', toWindows(zip), '--json']).code).toBe(0);
      const workspace = path.join(box.home, 'workspaces', 'case', 'contents');
      const moved = box.run(['mv', 'a.txt', 'A.txt', '--json']);
      expect(Object.values(filesBelow(workspace))).toStrictEqual(['alpha\n']); // no data loss, whatever mv answered
      expect(moved.json?.error).toBeUndefined();
      expect(moved.code).toBe(0);
      if (caseOnlyRenameWorks()) expect(fs.readdirSync(workspace)).toStrictEqual(['A.txt']);
      else
        console.warn(
          'windows-wine: this Wine renames nothing on a case-only rename (Wine 8.0 reports success and keeps the ' +
            'name): the check that the file is now "A.txt" is skipped',
        );
    },
    TIMEOUT,
  );

  // issue 20: entries whose folders differ only in case share one folder on Windows; that alone
  // must not look like a change, and a sync must write both names back exactly as they were.
  it(
    'an archive with Docs/a.txt and docs/b.txt opens clean and an unrelated sync keeps both names',
    () => {
      const zip = archive('mixed.zip', { 'Docs/a.txt': 'alpha\n', 'docs/b.txt': 'beta\n' });
      const opened = box.run(['open', toWindows(zip), '--json']);
      expect(opened.json?.error).toBeUndefined();
      expect(opened.code).toBe(0);
      expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
      expect(box.run(['write', 'other.txt', 'unrelated']).code).toBe(0);
      const synced = box.run(['sync', '--json']);
      expect(synced.json?.error).toBeUndefined();
      expect(synced.code).toBe(0);
      const read = pythonRead(zip);
      expect(read.names.filter((name) => !name.endsWith('/')).sort()).toStrictEqual([
        'Docs/a.txt',
        'docs/b.txt',
        'other.txt',
      ]);
      expect(Buffer.from(read.contents['Docs/a.txt']!, 'hex').toString()).toBe('alpha\n');
      expect(Buffer.from(read.contents['docs/b.txt']!, 'hex').toString()).toBe('beta\n');
    },
    TIMEOUT,
  );

  // issue 20: two files whose names differ only in case cannot both exist on Windows.
  it(
    'open refuses an archive with Readme.txt and README.txt (ZIP_INVALID naming both)',
    () => {
      const zip = archive('clash.zip', { 'Readme.txt': 'one\n', 'README.txt': 'two\n' });
      const result = box.run(['open', toWindows(zip), '--json']);
      expect(result.json?.error?.code).toBe('ZIP_INVALID');
      expect(result.code).toBe(7);
      expect(result.json.error.message).toContain(quoted('Readme.txt'));
      expect(result.json.error.message).toContain(quoted('README.txt'));
      expect(workspaces()).toStrictEqual([]);
    },
    TIMEOUT,
  );

  // issue 23, point 6: a lazy session does not need the folder to hold every name: those stay in the zip.
  it(
    'a lazy session opens an archive with names Windows cannot hold, reads them, refuses to extract them, and syncs ' +
      'them raw',
    () => {
      const zip = archive('lazy-names.zip', { 'ok.txt': 'fine\n', 'ab:c.txt': 'stream?\n', CON: 'device?\n' });
      const opened = box.run(['open', toWindows(zip), '--lazy', '--json']);
      expect(opened.json?.error).toBeUndefined();
      expect(opened.json.not_extracted).toBe(3);
      expect(box.run(['read', 'ab:c.txt']).stdout).toBe('stream?\n');
      const refused = box.run(['extract', 'CON', '--json']);
      expect(refused.json?.error?.code).toBe('ZIP_INVALID');
      expect(refused.json.error.message).toContain(quoted('CON'));
      expect(box.run(['write', 'ok.txt', 'changed\n']).code).toBe(0);
      expect(box.run(['sync', '--json']).json?.files_modified).toBe(1);
      const read = pythonRead(zip);
      expect(Buffer.from(read.contents['ab:c.txt']!, 'hex').toString()).toBe('stream?\n');
      expect(Buffer.from(read.contents['CON']!, 'hex').toString()).toBe('device?\n');
      expect(Buffer.from(read.contents['ok.txt']!, 'hex').toString()).toBe('changed\n');
      // Nothing was made under a name Windows would read otherwise (an alternate data stream of `ab`, a device).
      expect(
        fs
          .readdirSync(box.dir, { recursive: true })
          .map(String)
          .filter((made) => /(^|\/)(ab(:|$)|CON$)/.test(made)),
      ).toStrictEqual([]);
    },
    TIMEOUT,
  );

  /** A session "reports" open on reports.zip; returns the zip's and the workspace's Linux paths. */
  function openReports(): { zip: string; workspace: string } {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    expect(box.run(['open', toWindows(zip), '--json']).code).toBe(0);
    return { zip, workspace: path.join(box.home, 'workspaces', 'reports', 'contents') };
  }

  /** FILE_IN_USE (exit 20), naming the file and saying to retry once the other program lets go. */
  function expectFileInUse(result: RunResult, name: string): void {
    expect(result.json?.error?.code).toBe('FILE_IN_USE');
    expect(result.code).toBe(20);
    expect(result.json.error.message).toContain(name);
    expect(result.json.error.message).toMatch(/retry/i);
    expect(result.json.error.message).toMatch(/close/i);
  }

  // issue 20: Windows refuses to delete a file another program holds open (a sharing violation).
  it(
    'delete of a file another program holds open is FILE_IN_USE, and the file stays',
    async () => {
      const { workspace } = openReports();
      const result = await whileHeld(path.join(workspace, 'README.txt'), 'none', () =>
        box.run(['delete', 'README.txt', '--json']),
      );
      expect(fs.readFileSync(path.join(workspace, 'README.txt'), 'utf8')).toBe(REPORT_FILES['README.txt']);
      expectFileInUse(result, quoted('README.txt'));
      expect(box.run(['delete', 'README.txt']).code).toBe(0); // once it is let go, the same call works
    },
    TIMEOUT,
  );

  // issue 20: the same for a write into a file another program holds open.
  it(
    'write to a file another program holds open is FILE_IN_USE, and the file is unchanged',
    async () => {
      const { workspace } = openReports();
      const before = fs.readdirSync(path.join(workspace, 'data')).sort();
      const result = await whileHeld(path.join(workspace, 'data', 'config.json'), 'none', () =>
        box.run(['write', 'data/config.json', '{}', '--json']),
      );
      expect(fs.readFileSync(path.join(workspace, 'data', 'config.json'), 'utf8')).toBe(
        REPORT_FILES['data/config.json'],
      );
      expect(fs.readdirSync(path.join(workspace, 'data')).sort()).toStrictEqual(before); // no temporary left beside it
      expectFileInUse(result, quoted('data/config.json'));
    },
    TIMEOUT,
  );

  // issue 20: a program holding the zip open blocks replacing it (a viewer sharing reads only) or
  // even reading it (an editor sharing nothing); sync retries briefly, then says so, leaving the
  // zip, the workspace's change and no temporary behind.
  it.each([
    ['a viewer (sharing reads)', 'read'],
    ['a program sharing nothing', 'none'],
  ] as const)(
    'sync while %s holds the zip open is FILE_IN_USE and leaves everything as it was',
    async (_who, share) => {
      const { zip } = openReports();
      expect(box.run(['write', 'notes.txt', 'to be synced']).code).toBe(0);
      const before = { sha: sha(zip), files: fs.readdirSync(box.dir).sort() };
      const result = await whileHeld(zip, share, () => box.run(['sync', '--json']));
      expect({ sha: sha(zip), files: fs.readdirSync(box.dir).sort() }).toStrictEqual(before);
      expect(box.run(['status', '--json']).json).toMatchObject({ added: ['notes.txt'] });
      expectFileInUse(result, 'reports.zip');
      expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true }); // once it is let go, sync works
    },
    TIMEOUT,
  );

  // issue 20: Windows paths are case-insensitive: the same zip named in another case is the same zip.
  it(
    'open z:\\...\\A.zip after open Z:\\...\\a.zip answers "already open" with the same session',
    () => {
      const zip = writeZip(box.dir, 'a.zip', reportsZip());
      const first = box.run(['open', toWindows(zip), '--json']);
      expect(first.code).toBe(0);
      const otherCase = `z:${toWindows(path.join(box.dir, 'A.zip')).slice(2)}`;
      const second = box.run(['open', otherCase]);
      expect(second.stderr).toBe('');
      expect(second.stdout).toContain('Already open as session "a"');
      expect(second.code).toBe(0);
      expect(box.run(['sessions', '--json']).json.sessions).toHaveLength(1);
    },
    TIMEOUT,
  );

  // issue 20: the Windows place for per-user application data, as %LOCALAPPDATA%\zipfs.
  it(
    'with no ZIPFS_HOME, the data folder is %LOCALAPPDATA%\\zipfs',
    () => {
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const local = path.join(box.dir, 'LocalAppData');
      fs.mkdirSync(local);
      // USERPROFILE too, so that a zipfs still looking in the home folder writes into this sandbox, not Wine's prefix.
      const windowsEnv = { LOCALAPPDATA: toWindows(local), USERPROFILE: toWindows(path.join(box.dir, 'profile')) };
      const opened = runExe(['open', toWindows(zip), '--json'], { windowsEnv });
      expect(opened.code).toBe(0);
      expect(opened.json.workspace_path).toBe(`${toWindows(local)}\\zipfs\\workspaces\\reports\\contents`);
      expect(fs.existsSync(path.join(local, 'zipfs', 'workspaces', 'reports', 'contents', 'README.txt'))).toBe(true);
      expect(runExe(['close', '--json'], { windowsEnv }).code).toBe(0);
    },
    TIMEOUT,
  );
});
