/**
 * edit with patterns (issue 24, point 4): `regex` per edit (CLI `--regex`),
 * with the m flag so ^ and $ anchor at lines, $1-style references in the
 * replacement, the same checks as exact edits (a count, replace_all, the
 * diff, expected_sha256), bad patterns as INVALID_INPUT with the engine's
 * reason, and a time budget against catastrophic backtracking.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

const PROPERTIES = 'management.server.port=8080\nserver.port=8080\nserver.host=localhost\n';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'app.zip',
    rawZip([
      { name: 'app.properties', data: PROPERTIES },
      { name: 'dos.ini', data: 'a=1\r\nb=2\r\n' },
      { name: 'slow.txt', data: `${'a'.repeat(40)}b\n` },
    ]),
  );
  root = box.run(['open', zip, '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

const file = (name: string) => fs.readFileSync(path.join(root, name), 'utf8');

describe('zipfs edit --regex', () => {
  it('anchors ^ and $ at lines: a key=value line is patched, a longer key ending the same is not', () => {
    const result = box.run([
      'edit',
      'app.properties',
      '--regex',
      '--old',
      '^server\\.port=8080$',
      '--new',
      'server.port=9090',
      '--json',
    ]);
    expect(result.json).toMatchObject({ replacements: 1 });
    expect(result.json.diff).toContain('-server.port=8080\n+server.port=9090\n');
    expect(file('app.properties')).toBe('management.server.port=8080\nserver.port=9090\nserver.host=localhost\n');
  });

  it('puts groups into the replacement with $1 and $<name>; without --regex a $ is only a $', () => {
    box.run([
      'edit',
      'app.properties',
      '--regex',
      '--old',
      '^(server)\\.(?<key>host)=(.*)$',
      '--new',
      '$1.$<key>=[$3]',
    ]);
    expect(file('app.properties')).toContain('\nserver.host=[localhost]\n');
    box.run(['edit', 'app.properties', '--old', 'server.host=[localhost]', '--new', 'server.host=$1']);
    expect(file('app.properties')).toContain('\nserver.host=$1\n');
  });

  it('keeps the count checks: once, or every match with --replace-all', () => {
    const twice = box.run(['edit', 'app.properties', '--regex', '--old', 'port=\\d+', '--new', 'port=1']);
    expect(twice.code).toBe(19);
    expect(twice.stderr).toContain('the pattern "port=\\\\d+" matches "app.properties" 2 times; nothing was written');
    expect(twice.stderr).toContain('--replace-all');
    const none = box.run(['edit', 'app.properties', '--regex', '--old', '^port=', '--new', 'x', '--json']);
    expect(none.json.error.code).toBe('EDIT_MISMATCH');
    expect(none.json.error.message).toContain('matches nothing');
    expect(
      box.run([
        'edit',
        'app.properties',
        '--regex',
        '--replace-all',
        '--old',
        'port=\\d+$',
        '--new',
        'port=1',
        '--json',
      ]).json.replacements,
    ).toBe(2);
    expect(file('app.properties')).toBe('management.server.port=1\nserver.port=1\nserver.host=localhost\n');
  });

  it("refuses a malformed pattern with the engine's reason, and a stale expected_sha256", () => {
    const bad = box.run(['edit', 'app.properties', '--regex', '--old', 'port=(\\d+', '--new', 'x', '--json']);
    expect(bad.code).toBe(2);
    expect(bad.json.error.message).toMatch(/^The edit: old_text is not a valid regular expression: .*\)/);
    expect(
      box.run([
        'edit',
        'app.properties',
        '--regex',
        '--old',
        '^server\\.port=8080$',
        '--new',
        'x',
        '--expected-sha256',
        '0'.repeat(64),
        '--json',
      ]).json.error.code,
    ).toBe('CONFLICT_DETECTED');
    expect(file('app.properties')).toBe(PROPERTIES);
  });

  it('matches a CRLF file as LF lines and writes CRLF back', () => {
    box.run(['edit', 'dos.ini', '--regex', '--old', '^b=(\\d)$', '--new', 'b=$1$1']);
    expect(file('dos.ini')).toBe('a=1\r\nb=22\r\n');
  });

  it('stops a pattern that backtracks catastrophically at the time budget, writing nothing', () => {
    const started = Date.now();
    const slow = box.run(['edit', 'slow.txt', '--regex', '--old', '^(a+)+c', '--new', 'x', '--json'], {
      env: { ZIPFS_GREP_TIME_BUDGET_MS: '300' },
      timeoutMs: 20_000,
    });
    expect(slow.json.error.code).toBe('LIMIT_EXCEEDED');
    expect(slow.json.error.message).toContain('300 ms time budget');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(file('slow.txt')).toBe(`${'a'.repeat(40)}b\n`);
  });

  it('takes regex per edit from --edits-file', () => {
    const edits = path.join(box.dir, 'edits.json');
    fs.writeFileSync(
      edits,
      JSON.stringify([
        { old_text: '^server\\.port=\\d+$', new_text: 'server.port=1', regex: true },
        { old_text: 'localhost', new_text: 'example.org' },
      ]),
    );
    expect(box.run(['edit', 'app.properties', '--edits-file', edits, '--json']).json.replacements).toBe(2);
    expect(file('app.properties')).toBe('management.server.port=8080\nserver.port=1\nserver.host=example.org\n');
  });
});

describe('zipfs_edit with regex', () => {
  it('applies pattern edits with the same checks over MCP', async () => {
    const mcp = await connect(box.home);
    try {
      const preview = await call(mcp.client, 'zipfs_edit', {
        path: 'app.properties',
        edits: [{ old_text: '^server\\.port=(\\d+)$', new_text: 'server.port=1$1', regex: true }],
        dry_run: true,
      });
      expect(preview.data.diff).toContain('+server.port=18080\n');
      expect(file('app.properties')).toBe(PROPERTIES);
      const done = await call(mcp.client, 'zipfs_edit', {
        path: 'app.properties',
        edits: [{ old_text: 'port=8080$', new_text: 'port=1', regex: true, replace_all: true }],
      });
      expect(done.data.replacements).toBe(2);
      const twice = await call(mcp.client, 'zipfs_edit', {
        path: 'app.properties',
        edits: [{ old_text: 'port=1$', new_text: 'x', regex: true }],
      });
      expect(twice.data.error.code).toBe('EDIT_MISMATCH');
      expect(twice.data.error.message).toContain('replace_all: true');
      const bad = await call(mcp.client, 'zipfs_edit', {
        path: 'app.properties',
        edits: [{ old_text: '[', new_text: 'x', regex: true }],
      });
      expect(bad.data.error).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('not a valid regular expression'),
      });
    } finally {
      await mcp.close();
    }
  });
});
