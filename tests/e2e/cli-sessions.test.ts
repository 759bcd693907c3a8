import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, sandbox } from '../helpers/cli.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => ({ box, zip } = reportsSandbox(false)));
afterEach(() => box.cleanup());

describe('session resolution', () => {
  it('says NO_SESSIONS, with what to do, when nothing is open', () => {
    const result = box.run(['ls']);
    expect(result.code).toBe(ERROR_CODES.NO_SESSIONS.exit);
    expect(result.stderr).toContain('zipfs open');
    expect(result.stderr).toContain('[NO_SESSIONS]');
    expect(result.stdout).toBe('');
  });

  it('uses the only open session when none is named', () => {
    box.run(['open', zip]);
    expect(box.run(['path']).stdout.trim()).toBe(path.join(box.home, 'workspaces/reports/contents'));
  });

  it('lists the candidates in AMBIGUOUS_SESSION when several are open', () => {
    box.run(['open', zip, '--name', 'one']);
    box.run(['open', zip, '--name', 'two']);
    const result = box.run(['ls', '--json']);
    expect(result.code).toBe(ERROR_CODES.AMBIGUOUS_SESSION.exit);
    expect(result.json.error.message).toContain('one, two');
  });

  it('selects by name, id, id prefix, --session, -s, positional, ZIPFS_SESSION and working directory', () => {
    const one = box.run(['open', zip, '--name', 'one', '--json']).json;
    box.run(['open', zip, '--name', 'two']);
    const pathOf = (args: string[], options = {}) => box.run(['path', ...args, '--json'], options).json?.path;
    expect(pathOf(['one'])).toBe(one.workspace_path);
    expect(pathOf(['--session', 'one'])).toBe(one.workspace_path);
    expect(pathOf(['-s', one.session_id])).toBe(one.workspace_path);
    expect(pathOf([one.session_id.slice(0, 8)])).toBe(one.workspace_path);
    expect(pathOf([], { env: { ZIPFS_SESSION: 'one' } })).toBe(one.workspace_path);
    expect(pathOf([], { cwd: path.join(one.workspace_path, 'data') })).toBe(one.workspace_path);
  });

  it('says SESSION_NOT_FOUND and lists the open sessions for an unknown name', () => {
    box.run(['open', zip]);
    const result = box.run(['ls', '-s', 'nope', '--json']);
    expect(result.code).toBe(ERROR_CODES.SESSION_NOT_FOUND.exit);
    expect(result.json.error.message).toContain('Open sessions: reports');
  });

  it('says AMBIGUOUS_SESSION for an id prefix shared by several sessions', () => {
    const a = box.run(['open', zip, '--name', 'a', '--json']).json;
    const b = box.run(['open', zip, '--name', 'b', '--json']).json;
    // Make the two ids share a prefix by editing the manifests' session records.
    for (const [name, id] of [
      ['a', 'aaaaaaaa-0000-4000-8000-000000000001'],
      ['b', 'aaaaaaaa-0000-4000-8000-000000000002'],
    ]) {
      const manifest = path.join(box.home, 'workspaces', name!, 'manifest.jsonl');
      const text = fs.readFileSync(manifest, 'utf8');
      fs.writeFileSync(manifest, text.replace(name === 'a' ? a.session_id : b.session_id, id!));
    }
    const result = box.run(['path', 'aaaaaaaa', '--json']);
    expect(result.json.error.code).toBe('AMBIGUOUS_SESSION');
    expect(box.run(['path', 'aaaaaaaa-0000-4000-8000-000000000002', '--json']).json.path).toContain('/b/contents');
  });
});

describe('zipfs sessions', () => {
  it('returns the ADR fields and updates last_accessed_at on use', async () => {
    box.run(['open', zip]);
    const before = box.run(['sessions', '--json']).json.sessions[0];
    expect(before).toStrictEqual({
      id: expect.any(String),
      name: 'reports',
      source_path: zip,
      state: 'open',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/),
      last_accessed_at: expect.stringMatching(/Z$/),
      file_count: 6,
      extracted_size_bytes: expect.any(Number),
    });
    const manifest = path.join(box.home, 'workspaces/reports/manifest.jsonl');
    fs.utimesSync(manifest, new Date('2024-01-01T00:00:00Z'), new Date('2024-01-01T00:00:00Z'));
    expect(box.run(['sessions', '--json']).json.sessions[0].last_accessed_at).toBe('2024-01-01T00:00:00Z');
    box.run(['ls']);
    expect(box.run(['sessions', '--json']).json.sessions[0].last_accessed_at).not.toBe('2024-01-01T00:00:00Z');
  });

  it('prints an aligned table for people', () => {
    box.run(['open', zip, '--name', 'q4-report']);
    box.run(['open', zip, '--name', 'r']);
    const lines = box.run(['sessions']).stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ID\s+FILES\s+SIZE\s+LAST USED\s+SOURCE$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]!.indexOf(zip)).toBe(lines[2]!.indexOf(zip));
  });

  it('ignores folders that are not sessions', () => {
    fs.mkdirSync(path.join(box.home, 'workspaces', 'junk'), { recursive: true });
    expect(box.run(['sessions', '--json']).json).toStrictEqual({ sessions: [] });
  });
});

describe('zipfs close', () => {
  it('removes the workspace and the session', () => {
    box.run(['open', zip]);
    expect(box.run(['close', 'reports', '--json']).json).toStrictEqual({
      closed: true,
      synced: false,
      name: 'reports',
    });
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual([]);
    expect(box.run(['close', '--json']).json.error.code).toBe('NO_SESSIONS');
  });
});
