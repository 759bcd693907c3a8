/**
 * prune removes litter, never work (issue 28, items 14 and 15): a session
 * with unsynced changes is kept and listed in `skipped` (the dry run says so
 * too) unless `--discard-changes` is given, for eager and lazy sessions alike;
 * a session orphaned at once by a shell that ended right after `open` (an
 * agent's shell tool) keeps its changes through another job's
 * `prune --orphaned`, while a killed job's unchanged session still goes (the
 * CI recipe); a session a process is working in (its lock held, or a `zipfs
 * write` still reading stdin) is busy, not prunable; `--dry-run --json` says
 * `dry_run: true`; a ZIPFS_OWNER_PID naming no process is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'app.zip',
    rawZip([
      { name: 'config.properties', data: 'server.port=8080\n' },
      { name: 'docs/readme.txt', data: 'read me\n' },
    ]),
  );
});
afterEach(() => box.cleanup());

const shellEnv = () => ({
  ...process.env,
  NO_COLOR: '1',
  ZIPFS: BINARY,
  ZIPFS_HOME: box.home,
  ZIPFS_SESSION: undefined,
});

/** One command in a shell of its own that ends right after it, as an agent's shell tool runs each command. */
function shell(script: string): { code: number; stdout: string; stderr: string } {
  const result = Bun.spawnSync(['bash', '-c', `${script}; true`], { cwd: box.dir, env: shellEnv() });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

const workspaces = () =>
  fs
    .readdirSync(path.join(box.home, 'workspaces'))
    .filter((n) => !n.startsWith('.'))
    .sort();
const names = (list: { name: string }[]) => list.map((item) => item.name);

describe('prune keeps unsynced work', () => {
  it.each([
    ['an eager', ''],
    ['a lazy', ' --lazy'],
  ])(
    'keeps %s session orphaned at once by a shell per command, with its changes, until asked to discard them',
    (_kind, flags) => {
      // An agent: each command in a new shell, so the session's owner (open's shell) is gone at once.
      shell(`"$ZIPFS" open app.zip${flags}`);
      shell('"$ZIPFS" write docs/readme.txt "changed by the agent"');
      shell('"$ZIPFS" write notes.txt "new"');
      const kept =
        /^kept: 2 unsynced changes \(1 modified, 1 added, 0 deleted\); sync them \(zipfs sync app\) or discard them \(zipfs close app --force\), or pass --discard-changes$/;

      const dry = box.run(['prune', '--orphaned', '--dry-run', '--json']).json;
      expect(dry).toStrictEqual({
        pruned: [],
        skipped: [{ name: 'app', reason: expect.stringMatching(kept) }],
        freed_bytes: 0,
        dry_run: true,
      });
      const ran = box.run(['prune', '--orphaned', '--json']).json;
      expect(ran).toStrictEqual({
        pruned: [],
        skipped: [{ name: 'app', reason: expect.stringMatching(kept) }],
        freed_bytes: 0,
        dry_run: false,
      });
      for (const mode of [['--all'], ['--stale', '0s']])
        expect(names(box.run(['prune', ...mode, '--json']).json.skipped)).toStrictEqual(['app']);
      // The CI recipe's quiet prune still says what it kept.
      const quiet = box.run(['prune', '--orphaned', '-q']);
      expect([quiet.stdout, quiet.stderr]).toStrictEqual([
        '',
        'zipfs: kept 1 session for its unsynced changes ("app"); --discard-changes removes it too.\n',
      ]);
      expect(workspaces()).toStrictEqual(['app']);
      expect(box.run(['read', 'notes.txt']).stdout).toBe('new');

      const discarded = box.run(['prune', '--orphaned', '--discard-changes', '--json']).json;
      expect(discarded.pruned).toStrictEqual([
        {
          id: expect.any(String),
          name: 'app',
          reason: expect.stringMatching(
            /^orphaned \(process \d+ is gone\); 2 unsynced changes discarded \(1 modified, 1 added, 0 deleted\)$/,
          ),
        },
      ]);
      expect(workspaces()).toStrictEqual([]);
    },
  );

  it("still removes a killed job's unchanged session (the CI recipe), and says a dry run removes nothing", () => {
    shell('"$ZIPFS" open app.zip');
    expect(box.run(['prune', '--orphaned', '--dry-run', '--json']).json).toStrictEqual({
      pruned: [{ id: expect.any(String), name: 'app', reason: expect.stringMatching(/^orphaned/) }],
      skipped: [],
      freed_bytes: expect.any(Number),
      dry_run: true,
    });
    expect(workspaces()).toStrictEqual(['app']);
    const ran = box.run(['prune', '--orphaned', '--json']).json;
    expect([names(ran.pruned), ran.dry_run]).toStrictEqual([['app'], false]);
    expect(workspaces()).toStrictEqual([]);
  });
});

describe('a busy session is not prunable', () => {
  it('skips a session a zipfs write of the same job is still reading stdin for, and the write then lands', async () => {
    box.run(['open', zip]);
    const writer = Bun.spawn([BINARY, 'write', 'piped.txt'], {
      env: shellEnv(),
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    });
    writer.stdin.write('first half, ');
    writer.stdin.flush();
    // The write marks the session in use before it reads stdin (before the fix there was no mark: this wait fails).
    const mark = path.join(box.home, 'workspaces/app', `in-use-${writer.pid}`);
    await waitFor(() => fs.existsSync(mark), { what: `the writer's in-use mark ${mark}` });
    // The same job (this test process is both processes' parent) prunes everything.
    const pruned = box.run(['prune', '--all', '--json']).json;
    writer.stdin.write('second half');
    writer.stdin.end();
    expect(await writer.exited).toBe(0);
    expect(pruned.pruned).toStrictEqual([]);
    expect(pruned.skipped).toStrictEqual([
      { name: 'app', reason: `busy: process ${writer.pid} is working in it (zipfs write); retry when it has finished` },
    ]);
    expect(box.run(['read', 'piped.txt']).stdout).toBe('first half, second half');
    expect(fs.existsSync(mark)).toBe(false);
  });
});

describe('ZIPFS_OWNER_PID', () => {
  it('is refused when it names no running process, before anything is opened', async () => {
    const gone = Bun.spawn(['true']);
    await gone.exited;
    const result = box.run(['open', zip, '--json'], { env: { ZIPFS_OWNER_PID: String(gone.pid) } });
    expect(result.json.error.code).toBe('INVALID_INPUT');
    expect(result.json.error.message).toBe(
      `Environment variable ZIPFS_OWNER_PID=${gone.pid} names no running process, so the sessions this job opens would be orphaned at once. Set it to the pid of a process that lives as long as the job (the job's shell: $$; in GitHub Actions the runner's worker: $PPID in the first step), or unset it to use zipfs's parent process.`,
    );
    expect(fs.existsSync(path.join(box.home, 'workspaces')) ? workspaces() : []).toStrictEqual([]);
    expect(box.run(['open', zip, '--json'], { env: { ZIPFS_OWNER_PID: String(process.pid) } }).json.name).toBe('app');
  });
});
