/**
 * ZIPFS_* variables through the binary: a malformed value is INVALID_INPUT (exit 2) naming the
 * variable and what it takes, never silently replaced by the default; valid values still work.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';

const box = sandbox();
const zip = writeZip(box.dir, 'reports.zip', reportsZip());
afterAll(() => box.cleanup());

const workspaces = () =>
  fs.existsSync(path.join(box.home, 'workspaces')) ? fs.readdirSync(path.join(box.home, 'workspaces')) : [];

describe('environment variables', () => {
  it.each([
    ['ZIPFS_THREADS', 'abc', 'it takes 1 or 2'],
    ['ZIPFS_THREADS', '0', 'it takes 1 or 2'],
    ['ZIPFS_THREADS', '3', 'it takes 1 or 2'],
    ['ZIPFS_THREADS', '1.5', 'it takes 1 or 2'],
    ['ZIPFS_NATIVE', 'maybe', 'it takes 0 (node:fs, Date and node:zlib only) or 1'],
    ['ZIPFS_NATIVE', 'true', 'it takes 0 (node:fs, Date and node:zlib only) or 1'],
    ['ZIPFS_PROGRESS_DELAY_MS', 'soon', 'it takes a number of at least 0'],
    ['ZIPFS_MAX_ENTRIES', 'lots', 'it takes a number of at least 1'],
  ])('refuses %s=%p on open as INVALID_INPUT naming it and what it takes', (name, value, takes) => {
    const result = box.run(['open', zip, '--json'], { env: { [name]: value } });
    expect(result.code).toBe(2);
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(result.json.error.message).toContain(`Environment variable ${name}="${value}" is malformed: ${takes}`);
    expect(result.json.error.message).toContain('unset it to use the default');
    expect(workspaces()).toStrictEqual([]);
  });

  it('says so in one line on stderr without --json', () => {
    const result = box.run(['open', zip], { env: { ZIPFS_THREADS: 'abc' } });
    expect([result.code, result.stdout]).toStrictEqual([2, '']);
    expect(result.stderr).toBe(
      'zipfs: Environment variable ZIPFS_THREADS="abc" is malformed: it takes 1 or 2. Correct it, or unset it to ' +
        'use the default (2). [INVALID_INPUT]\n',
    );
  });

  it('refuses a malformed ZIPFS_NATIVE on commands that may never need the native calls', () => {
    expect(box.run(['sessions', '--json'], { env: { ZIPFS_NATIVE: 'maybe' } }).json.error.code).toBe('INVALID_INPUT');
  });

  it('stops the MCP server before it starts, with the message on stderr and nothing on stdout', () => {
    const result = Bun.spawnSync([BINARY, 'mcp'], {
      env: { ...process.env, ZIPFS_HOME: box.home, ZIPFS_NATIVE: 'maybe' },
      stdin: 'ignore',
      timeout: 30_000,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout.toString()).toBe('');
    expect(result.stderr.toString()).toContain('ZIPFS_NATIVE="maybe" is malformed');
  });

  it.each([
    ['ZIPFS_THREADS=1', { ZIPFS_THREADS: '1' }],
    ['ZIPFS_THREADS=2', { ZIPFS_THREADS: '2' }],
    ['ZIPFS_THREADS=" 2 "', { ZIPFS_THREADS: ' 2 ' }],
    ['ZIPFS_NATIVE=0', { ZIPFS_NATIVE: '0' }],
    ['ZIPFS_NATIVE=1', { ZIPFS_NATIVE: '1' }],
    ["empty values, as unset (a shell's `ZIPFS_NATIVE= zipfs ...`)", { ZIPFS_NATIVE: '', ZIPFS_THREADS: '' }],
    ['ZIPFS_PROGRESS_DELAY_MS=0', { ZIPFS_PROGRESS_DELAY_MS: '0' }],
  ])('accepts %s', (_label, env) => {
    const opened = box.run(['open', zip, '--json'], { env });
    expect(opened.json.file_count).toBe(6);
    expect(box.run(['close', '--json'], { env }).json.closed).toBe(true);
  });
});
