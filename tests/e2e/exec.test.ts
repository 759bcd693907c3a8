/**
 * `zipfs exec ZIP -- COMMAND` (issue 24, point 1): one call opens a private
 * session, runs COMMAND in its workspace with ZIPFS_SESSION set, syncs when it
 * succeeds, discards when it fails or is interrupted, closes, and exits with
 * COMMAND's status.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { rawEntries } from '../helpers/zip-compare.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let original: Buffer;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'app.zip', rawZip([{ name: 'config.properties', data: 'server.port=8080\n' }]));
  original = fs.readFileSync(zip);
});
afterEach(() => box.cleanup());

const sessions = () => box.run(['sessions', '--json']).json.sessions;
const env = () => ({ ZIPFS: BINARY });

describe('zipfs exec', () => {
  it('runs the command in the workspace, where zipfs itself finds the session; syncs when it succeeds and closes', () => {
    const result = box.run(
      [
        'exec',
        zip,
        '--',
        'sh',
        '-c',
        'echo new > added.txt && "$ZIPFS" edit config.properties --old 8080 --new 9090 >/dev/null && echo "$ZIPFS_SESSION"',
      ],
      { env: env() },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^exec-\d+-[0-9a-f]{8}$/); // the command saw its private session
    expect(result.stderr).toContain('zipfs exec: synced 1 modified, 1 added, 0 deleted');
    expect(rawEntries(zip).order).toStrictEqual(['config.properties', 'added.txt']);
    expect(sessions()).toStrictEqual([]);
  });

  it("exits with the command's status when it fails, discarding its changes", () => {
    const result = box.run(['exec', zip, '--', 'sh', '-c', 'echo half > half.txt; exit 3']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('exited with 3; nothing synced, the session was discarded');
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(sessions()).toStrictEqual([]);
  });

  it('keeps the session of a failed command when asked, for a look', () => {
    const result = box.run(['exec', zip, '--keep-on-failure', '--', 'sh', '-c', 'echo half > half.txt; exit 1']);
    expect(result.code).toBe(1);
    const [kept] = sessions();
    expect(result.stderr).toContain(`The session "${kept.name}" is kept`);
    expect(box.run(['status', '-s', kept.name, '--json']).json.added).toStrictEqual(['half.txt']);
  });

  it('stops the command on SIGTERM, syncs nothing and closes (exit 143)', async () => {
    const child = Bun.spawn([BINARY, 'exec', zip, '--', 'sh', '-c', 'echo x > x.txt; exec sleep 30'], {
      env: { ...process.env, ZIPFS_HOME: box.home },
      stdout: 'ignore',
      stderr: 'pipe',
    });
    // Signalled once the command has run (its x.txt is in the workspace), so the signal stops a running
    // command, not an open that has not started it.
    const written = () =>
      fs.existsSync(path.join(box.home, 'workspaces')) &&
      fs
        .readdirSync(path.join(box.home, 'workspaces'), { recursive: true })
        .some((f) => path.basename(String(f)) === 'x.txt');
    await waitFor(() => written() || child.exitCode !== null, { what: 'the command to write x.txt in the workspace' });
    expect(child.exitCode).toBeNull();
    child.kill('SIGTERM');
    expect(await child.exited).toBe(143);
    expect(await new Response(child.stderr).text()).toContain('was interrupted (SIGTERM); nothing synced');
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(sessions()).toStrictEqual([]);
  });

  it('stops the command on SIGINT (Ctrl-C), syncs nothing and closes (exit 130)', async () => {
    const child = Bun.spawn([BINARY, 'exec', zip, '--', 'sh', '-c', 'echo x > x.txt; echo ready; exec sleep 30'], {
      env: { ...process.env, ZIPFS_HOME: box.home },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('ready\n');
    child.kill('SIGINT');
    expect(await child.exited).toBe(130);
    expect(await new Response(child.stderr).text()).toContain('was interrupted (SIGINT); nothing synced');
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(sessions()).toStrictEqual([]);
  });

  it("under timeout(1), a job's time limit stops the command and loses nothing: the zip as it was, no session left", () => {
    // Whenever the limit falls (a busy machine may still be opening), the zip is as it was and nothing is left.
    const result = Bun.spawnSync(
      ['timeout', '1', BINARY, 'exec', zip, '--', 'sh', '-c', 'echo x > x.txt; exec sleep 30'],
      { env: { ...process.env, ZIPFS_HOME: box.home }, stderr: 'pipe' },
    );
    expect(result.exitCode).toBe(124); // timeout's own code: the command ran out of time
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(fs.readdirSync(path.join(box.home, 'workspaces'))).toStrictEqual([]); // no session, no staging folder
  });

  it('says how to call it when the command or the zip is missing', () => {
    const result = box.run(['exec', zip, '--json']);
    expect(result.code).toBe(2);
    expect(result.json.error.message).toContain('zipfs exec ZIP');
    expect(box.run(['exec', path.join(box.dir, 'missing.zip'), '--', 'true', '--json']).code).toBe(6);
  });
});
