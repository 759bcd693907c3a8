/**
 * The real Windows binary (dist/windows-x64/zipfs.exe) under Wine, driven as a
 * Windows user or script would: Windows paths, a Windows data folder, exit codes,
 * output, and the archive it writes checked from the Linux side. Skipped, with
 * the reason in the suite's name, where Wine or mingw-w64 is missing (.ci/run
 * installs them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { writeZip } from '../helpers/cli.ts';
import { binaryBytes, REPORT_FILES, reportsZip } from '../helpers/fixtures.ts';
import { needs } from '../helpers/tools.ts';
import { mcpCalls, toWindows, wine, wineSandbox } from '../helpers/wine.ts';
import { infoZip, pythonRead } from '../helpers/zip-compare.ts';

const borrowed = needs('python3', 'unzip');
/** Each zipfs.exe call starts a Windows process under Wine (0.1-0.7 s): a test makes up to 25. */
const TIMEOUT = 120_000;
const skip = wine.skip || borrowed.skip;
const why = wine.skip ? wine.why : borrowed.why;

let box: ReturnType<typeof wineSandbox>;
beforeEach(() => (box = wineSandbox()));
afterEach(() => box.cleanup());

/** What is in the data folder's workspaces/ (sessions, and staging folders an open left behind). */
const workspaces = () => (fs.existsSync(path.join(box.home, 'workspaces')) ? fs.readdirSync(path.join(box.home, 'workspaces')) : []);

describe.skipIf(skip)(`zipfs.exe under Wine${why}`, () => {
  it('runs a whole session as a Windows user would: open, ls, read, write, edit, mv, delete, grep, status, diff, sync, close', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const original = fs.readFileSync(zip);
    expect(box.run(['--version']).stdout.trim()).toBe(pkg.version);

    const opened = box.run(['open', toWindows(zip), '--json']);
    expect(opened.code).toBe(0);
    expect(opened.json).toMatchObject({ name: 'reports', workspace_path: `${toWindows(box.home)}\\workspaces\\reports\\contents`, file_count: 6 });
    const workspace = path.join(box.home, 'workspaces', 'reports', 'contents');

    expect(box.run(['ls', '--json']).json.entries.map((entry: { name: string }) => entry.name).sort()).toStrictEqual(['README.txt', 'data/', 'empty/', 'logo.png']);
    expect(box.run(['read', 'README.txt']).stdout).toBe(REPORT_FILES['README.txt']); // no \r\n added on the way out
    expect(Buffer.from(box.run(['read', 'logo.png', '--json']).json.content, 'base64')).toStrictEqual(Buffer.from(binaryBytes(3000)));

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
      added: expect.arrayContaining(['notes.txt', 'data/crlf.txt', 'data/archive/input.csv']),
      deleted: expect.arrayContaining(['data/input.csv', 'data/output.csv']),
    });
    const diff = box.run(['diff']);
    expect(diff.stdout).toContain('-  "debug": true');
    expect(diff.stdout).toContain('+  "debug": false');

    const synced = box.run(['sync', '--json']);
    expect(synced.code).toBe(0);
    expect(synced.json).toMatchObject({ synced: true, backup_path: `${toWindows(zip)}.bak`, files_modified: 1, files_added: 3, files_deleted: 2 });

    // The archive written on Windows, read on Linux: whole, names with "/", the old one kept as the backup.
    expect(infoZip(zip).test).toBe(0);
    const read = pythonRead(zip);
    expect(read.names.filter((name) => !name.endsWith('/')).sort()).toStrictEqual(['README.txt', 'data/archive/2024.csv', 'data/archive/input.csv', 'data/config.json', 'data/crlf.txt', 'logo.png', 'notes.txt']);
    expect(read.names.every((name) => !name.includes('\\'))).toBe(true);
    expect(Buffer.from(read.contents['data/config.json']!, 'hex').toString()).toContain('"debug": false');
    expect(Buffer.from(read.contents['data/crlf.txt']!, 'hex').toString()).toBe('one\r\ntwo\r\n');
    expect(Buffer.from(read.contents['data/archive/input.csv']!, 'hex').toString()).toBe(REPORT_FILES['data/input.csv']);
    expect(fs.readFileSync(`${zip}.bak`)).toStrictEqual(original);

    expect(box.run(['close', '--json']).json).toMatchObject({ closed: true, name: 'reports' });
    expect(box.run(['sessions', '--json']).json.sessions).toStrictEqual([]);
    expect(workspaces()).toStrictEqual([]);
  }, TIMEOUT);

  it('serves MCP to a Windows-side client (the SDK\'s Client spawning zipfs.exe mcp over Windows pipes)', () => {
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const transcript = mcpCalls({ ZIPFS_HOME: toWindows(box.home) }, [
      { name: 'zipfs_open', arguments: { path: toWindows(zip) } },
      { name: 'zipfs_read', arguments: { path: 'data/config.json' } },
      { name: 'zipfs_edit', arguments: { path: 'data/config.json', edits: [{ old_text: '"region": "emea"', new_text: '"region": "apac"' }] } },
      { name: 'zipfs_write', arguments: { path: 'docs/mcp.txt', content: 'written over MCP' } },
      { name: 'zipfs_status', arguments: {} },
      { name: 'zipfs_sync', arguments: {} },
      { name: 'zipfs_close', arguments: {} },
    ]);
    expect(transcript.server).toMatchObject({ name: 'zipfs', version: pkg.version });
    expect(transcript.tools).toEqual(expect.arrayContaining(['zipfs_open', 'zipfs_read', 'zipfs_sync', 'zipfs_close']));
    expect(transcript.results.map((result) => result.isError ?? false)).toStrictEqual([false, false, false, false, false, false, false]);
    const [opened, read, , , status, synced, closed] = transcript.results.map((result) => result.structuredContent);
    expect(opened).toMatchObject({ name: 'reports', workspace_path: `${toWindows(box.home)}\\workspaces\\reports\\contents` });
    expect(read.content).toBe(REPORT_FILES['data/config.json']);
    expect(status).toMatchObject({ modified: ['data/config.json'], added: ['docs/mcp.txt'], deleted: [] });
    expect(synced).toMatchObject({ synced: true, backup_path: `${toWindows(zip)}.bak` });
    expect(closed).toMatchObject({ closed: true });

    expect(infoZip(zip).test).toBe(0);
    const contents = pythonRead(zip).contents;
    expect(Buffer.from(contents['docs/mcp.txt']!, 'hex').toString()).toBe('written over MCP');
    expect(Buffer.from(contents['data/config.json']!, 'hex').toString()).toContain('"region": "apac"');
  }, TIMEOUT);
});
