/**
 * Permissions as a normal user meets them. CI runs as root, where permission
 * bits mean nothing, so these runs drop to `nobody` through setpriv (as a
 * normal user they run directly). Each case once ended in INTERNAL_ERROR
 * (exit 70); now it is PERMISSION_DENIED (exit 17) naming the path and the fix,
 * and nothing is lost or left half-done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { runZipfs, writeZip, type RunOptions } from '../helpers/cli.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { sha } from '../helpers/zip-compare.ts';
import { binaryReachable, giveToUnprivileged, unprivilegedPrefix } from '../helpers/tools.ts';

const prefix = unprivilegedPrefix();
const runnable = prefix !== undefined && binaryReachable(BINARY);
const why =
  prefix === undefined ? 'setpriv is missing (apt-get install util-linux)' : 'dist/zipfs is not reachable by nobody';

let dir: string;
let home: string;
let zip: string;
const run = (args: string[], options: RunOptions = {}) =>
  runZipfs(args, { ...options, prefix, env: { ZIPFS_HOME: home, HOME: dir, ...options.env }, timeoutMs: 20_000 });

beforeEach(() => {
  // /tmp is open to every user; the sandbox inside it is handed to the unprivileged user.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-perm-'));
  home = path.join(dir, 'home');
  zip = writeZip(dir, 'reports.zip', reportsZip());
  giveToUnprivileged(dir);
});
afterEach(() => {
  fs.chmodSync(dir, 0o700);
  Bun.spawnSync(['chmod', '-R', 'u+rwX', dir]);
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectDenied(result: ReturnType<typeof run>, pathPart: string): void {
  expect(result.json?.error?.code).toBe('PERMISSION_DENIED');
  expect(result.code).toBe(ERROR_CODES.PERMISSION_DENIED.exit);
  expect(result.json.error.message).toContain(pathPart);
}

describe.skipIf(!runnable)(`permissions as a normal user${runnable ? '' : ` (skipped: ${why})`}`, () => {
  it('refuses to open into a data directory it cannot write, leaving nothing', () => {
    fs.mkdirSync(home, { mode: 0o555 });
    giveToUnprivileged(home);
    fs.chmodSync(home, 0o555);
    expectDenied(run(['open', zip, '--json']), home);
    fs.mkdirSync(path.join(dir, 'h2', 'workspaces'), { recursive: true });
    giveToUnprivileged(path.join(dir, 'h2'));
    fs.chmodSync(path.join(dir, 'h2', 'workspaces'), 0o555);
    expectDenied(
      run(['open', zip, '--json'], { env: { ZIPFS_HOME: path.join(dir, 'h2') } }),
      path.join(dir, 'h2', 'workspaces'),
    );
    expect(fs.readdirSync(path.join(dir, 'h2', 'workspaces'))).toStrictEqual([]);
  });

  it('names a chmod 000 file for status, sync and close, keeps the zip, and close --force removes everything', () => {
    const root = run(['open', zip, '--json']).json.workspace_path;
    const locked = path.join(root, 'data', 'config.json');
    fs.chmodSync(locked, 0o000); // chmod moves ctime: status must read the file to know it is unchanged
    const before = sha(zip);
    expectDenied(run(['status', '--json']), locked);
    expectDenied(run(['sync', '--json']), locked);
    expectDenied(run(['close', '--json']), locked);
    expect(sha(zip)).toBe(before);
    fs.chmodSync(path.join(root, 'data'), 0o000);
    expectDenied(run(['status', '--json']), path.join(root, 'data'));
    expect(run(['close', '--force', '--json']).json).toStrictEqual({ closed: true, synced: false, name: 'reports' });
    expect(fs.readdirSync(path.join(home, 'workspaces'))).toStrictEqual([]); // no .closing-* left behind
  });

  it('says which session folder it cannot lock when the session folder is read-only', () => {
    run(['open', zip]);
    const session = path.join(home, 'workspaces', 'reports');
    fs.chmodSync(session, 0o555);
    const result = run(['write', 'x.txt', 'x', '--json']);
    expectDenied(result, session);
    expect(result.json.error.message).toContain('cannot be locked');
    fs.chmodSync(session, 0o755);
    expect(run(['write', 'x.txt', 'x', '--json']).json.written).toBe(true);
  });

  it('refuses to sync into a folder it cannot write, leaving the zip as it was', () => {
    run(['open', zip]);
    run(['write', 'x.txt', 'x']);
    fs.chmodSync(dir, 0o555);
    const before = sha(zip);
    expectDenied(run(['sync', '--json']), dir);
    expect(sha(zip)).toBe(before);
    fs.chmodSync(dir, 0o755);
    expect(run(['sync', '--json']).json.synced).toBe(true);
  });

  it('syncs a read-only zip (0444) as its owner, keeping the mode: the flush needs no descriptor opened again', () => {
    fs.chmodSync(zip, 0o444);
    run(['open', zip]);
    run(['write', 'x.txt', 'x']);
    expect(run(['sync', '--json']).json.synced).toBe(true);
    expect(fs.statSync(zip).mode & 0o777).toBe(0o444);
    expect(run(['status', '--json']).json.added).toStrictEqual([]);
  });
});
