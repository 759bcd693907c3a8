/**
 * Jobs never trip over each other (issue 24, point 2): a session records the
 * process of the job that opened it (the CLI's parent shell, exec itself, the
 * MCP server); prune spares a live job's sessions, `prune --orphaned` removes
 * a killed job's, a retry of a killed job takes its unchanged session's name
 * over, and `open --new` never reuses a session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'app.zip', rawZip([{ name: 'config.properties', data: 'server.port=8080\n' }]));
});
afterEach(() => box.cleanup());

const shellEnv = (home = box.home) => ({
  ...process.env,
  NO_COLOR: '1',
  ZIPFS: BINARY,
  ZIPFS_HOME: home,
  ZIPFS_SESSION: undefined,
});

/** Runs a job's script in a shell of its own that exits when it ends, as a CI step does: what it opened is then orphaned. */
function job(script: string, home = box.home): { code: number; stdout: string; stderr: string } {
  // The trailing `exit` keeps the shell from exec'ing zipfs in its place: zipfs's parent is the job's shell.
  const result = Bun.spawnSync(['sh', '-c', `${script}\nexit $?`], { cwd: box.dir, env: shellEnv(home) });
  return { code: result.exitCode ?? -1, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
}

/** A job still running: its shell opened `name` (or, with no name, the zip's session) and waits until killed. */
async function liveJob(name?: string): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = Bun.spawn(
    ['sh', '-c', `"$ZIPFS" open app.zip ${name ? `--name ${name}` : ''} >/dev/null && echo ready; sleep 60; true`],
    { cwd: box.dir, env: shellEnv(), stdout: 'pipe' },
  );
  const reader = child.stdout.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe('ready\n');
  reader.releaseLock();
  return { pid: child.pid, stop: async () => void (child.kill('SIGKILL'), await child.exited) };
}

const manifest = (name: string) => path.join(box.home, 'workspaces', name, 'manifest.jsonl');
const record = (name: string) => JSON.parse(fs.readFileSync(manifest(name), 'utf8').split('\n')[0]!);
function rewriteRecord(name: string, change: (record: any) => void): void {
  const [first, ...rest] = fs.readFileSync(manifest(name), 'utf8').split('\n');
  const head = JSON.parse(first!);
  change(head);
  fs.writeFileSync(manifest(name), [JSON.stringify(head), ...rest].join('\n'));
}
const names = () =>
  box
    .run(['sessions', '--json'])
    .json.sessions.map((s: { name: string }) => s.name)
    .sort();

describe('a session belongs to the job that opened it', () => {
  it("records the job's shell (pid and start time) as the owner", () => {
    const ran = job('echo $$; "$ZIPFS" open app.zip --name build-1 >/dev/null');
    const owner = record('build-1').owner;
    expect(owner.pid).toBe(Number(ran.stdout.trim()));
    expect(owner.start).toEqual(expect.any(Number));
  });

  it('lets the retry of a killed job take over its unchanged session, under the same name', () => {
    expect(job('"$ZIPFS" open app.zip --name build-1 >/dev/null').code).toBe(0);
    const first = record('build-1').id;
    const retry = job('"$ZIPFS" open app.zip --name build-1 --json');
    expect(retry.code).toBe(0);
    const answer = JSON.parse(retry.stdout);
    expect(answer.name).toBe('build-1');
    expect(answer.warnings[0]).toMatch(
      /^took over session "build-1" left by process \d+, which is gone; it had no unsynced changes$/,
    );
    expect(answer.session_id).not.toBe(first);
    expect(job('"$ZIPFS" open app.zip --name build-1').stderr).toContain('zipfs: took over session "build-1"');
  });

  it("refuses to take over a killed job's session that holds changes, and says how to remove it", () => {
    job('"$ZIPFS" open app.zip --name build-1 >/dev/null && cd "$("$ZIPFS" path -s build-1)" && echo half > half.txt');
    const retry = job('"$ZIPFS" open app.zip --name build-1');
    expect(retry.code).toBe(15);
    expect(retry.stderr).toMatch(
      /which is gone \(a killed job\?\), with unsynced changes \(0 modified, 1 added, 0 deleted\), so it is not taken over/,
    );
    expect(retry.stderr).toContain('zipfs status build-1');
    expect(retry.stderr).toContain('zipfs close build-1 --force');
    expect(retry.stderr).toContain('zipfs prune --orphaned --discard-changes');
    expect(retry.stderr).toContain('[NAME_COLLISION]');
    expect(fs.existsSync(path.join(box.home, 'workspaces', 'build-1', 'contents', 'half.txt'))).toBe(true);

    // Its changes are work: prune --orphaned keeps it (prune-keeps-work.test.ts) until they are discarded.
    expect(box.run(['prune', '--orphaned', '--json']).json.skipped).toStrictEqual([
      { name: 'build-1', reason: expect.stringMatching(/^kept: 1 unsynced change \(0 modified, 1 added, 0 deleted\)/) },
    ]);
    const pruned = box.run(['prune', '--orphaned', '--discard-changes', '--json']).json;
    expect(pruned.pruned).toStrictEqual([
      {
        id: expect.any(String),
        name: 'build-1',
        reason: expect.stringMatching(/^orphaned \(process \d+ is gone\); 1 unsynced change discarded/),
      },
    ]);
    expect(job('"$ZIPFS" open app.zip --name build-1 >/dev/null').code).toBe(0);
  });

  it("keeps a running job's session from prune --all and --stale, and from another open of its name", async () => {
    const running = await liveJob('build-1');
    try {
      box.run(['open', zip, '--name', 'mine']); // this test's own process owns it, and it is not running prune: another job
      const all = box.run(['prune', '--all', '--json']).json;
      const kept = {
        name: 'build-1',
        reason: `its owner, process ${running.pid}, is still running (the job that opened it); pass --include-live to remove it anyway`,
      };
      expect(all.skipped).toContainEqual(kept);
      expect(box.run(['prune', '--stale', '0s', '--json']).json.skipped).toContainEqual(kept);
      expect(box.run(['prune', '--orphaned', '--json']).json).toStrictEqual({
        pruned: [],
        skipped: [],
        freed_bytes: 0,
        dry_run: false,
      });
      const taken = box.run(['open', zip, '--name', 'build-1']);
      expect(taken.code).toBe(15);
      expect(taken.stderr).toContain(`belongs to process ${running.pid}, which is still running`);
      expect(names()).toStrictEqual(['build-1']);
      expect(
        box.run(['prune', '--all', '--include-live', '--json']).json.pruned.map((p: { name: string }) => p.name),
      ).toStrictEqual(['build-1']);
    } finally {
      await running.stop();
    }
  });

  it.each([
    ['an eager', ''],
    ['a lazy', ' --lazy'],
  ])(
    "makes a killed job's session (%s one) the job's that reuses it (open without a name), so prune --orphaned leaves it",
    async (_kind, flags) => {
      job(`"$ZIPFS" open app.zip${flags} >/dev/null`);
      const before = fs.readFileSync(manifest('app'), 'utf8').split('\n').slice(1).join('\n');
      const running = await liveJob();
      try {
        expect(names()).toStrictEqual(['app']);
        expect(record('app').owner.pid).toBe(running.pid);
        expect(fs.readFileSync(manifest('app'), 'utf8').split('\n').slice(1).join('\n')).toBe(before); // only the session record changed
        expect(box.run(['read', 'config.properties']).stdout).toBe('server.port=8080\n');
        expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
        expect(box.run(['prune', '--orphaned', '--json']).json.pruned).toStrictEqual([]);
        // Another job reusing it while its owner runs does not take it from that owner.
        expect(box.run(['open', zip, '--json']).json.already_open).toBe(true);
        expect(record('app').owner.pid).toBe(running.pid);
      } finally {
        await running.stop();
      }
    },
  );

  it('lets a job prune its own sessions', () => {
    const ran = job('"$ZIPFS" open app.zip --name build-1 >/dev/null && "$ZIPFS" prune --all --json');
    expect(JSON.parse(ran.stdout).pruned.map((p: { name: string }) => p.name)).toStrictEqual(['build-1']);
  });

  it('tells a reused pid from the owner by its start time', () => {
    job('"$ZIPFS" open app.zip --name build-1 >/dev/null');
    const start = Number(fs.readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]);
    // This test's process is alive, so with its pid and start time the session belongs to a live job...
    rewriteRecord('build-1', (head) => (head.owner = { ...head.owner, pid: process.pid, start }));
    expect(box.run(['prune', '--orphaned', '--json']).json.pruned).toStrictEqual([]);
    // ...and with another start time its pid was reused: the owner is gone.
    rewriteRecord('build-1', (head) => (head.owner = { ...head.owner, pid: process.pid, start: start - 1 }));
    expect(box.run(['prune', '--orphaned', '--json']).json.pruned.map((p: { name: string }) => p.name)).toStrictEqual([
      'build-1',
    ]);
  });

  it('reads sessions of older zipfs versions, which record no owner: never orphaned, never taken over', () => {
    job('"$ZIPFS" open app.zip --name old >/dev/null');
    rewriteRecord('old', (head) => delete head.owner);
    expect(names()).toStrictEqual(['old']);
    expect(box.run(['prune', '--orphaned', '--json']).json.pruned).toStrictEqual([]);
    const again = box.run(['open', zip, '--name', 'old']);
    expect(again.code).toBe(15);
    expect(again.stderr).toContain('records no owner process (an older zipfs opened it)');
    expect(box.run(['prune', '--all', '--json']).json.pruned.map((p: { name: string }) => p.name)).toStrictEqual([
      'old',
    ]);
  });

  it('leaves exec killed with SIGKILL as an orphan that prune --orphaned keeps for its changes, and removes with --discard-changes', async () => {
    const child = Bun.spawn([BINARY, 'exec', zip, '--', 'sh', '-c', 'echo x > x.txt; echo ready; exec sleep 60'], {
      env: shellEnv(),
      stdout: 'pipe',
      stderr: 'ignore',
    });
    const reader = child.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('ready\n');
    const [session] = names();
    expect(record(session).owner.pid).toBe(child.pid); // exec owns its session itself
    child.kill('SIGKILL');
    await child.exited;
    Bun.spawnSync(['pkill', '-KILL', '-P', String(child.pid)]); // its sleep, left running by the kill
    expect(box.run(['prune', '--orphaned', '--json']).json.skipped.map((p: { name: string }) => p.name)).toStrictEqual([
      session,
    ]);
    const pruned = box.run(['prune', '--orphaned', '--discard-changes', '--json']).json.pruned;
    expect(pruned.map((p: { name: string }) => p.name)).toStrictEqual([session]);
    expect(names()).toStrictEqual([]);
  });

  it('refuses a malformed ZIPFS_OWNER_PID and records a given one', () => {
    expect(box.run(['open', zip, '--json'], { env: { ZIPFS_OWNER_PID: 'shell' } }).json.error.code).toBe(
      'INVALID_INPUT',
    );
    box.run(['open', zip, '--name', 'stepped'], { env: { ZIPFS_OWNER_PID: String(process.pid) } });
    expect(record('stepped').owner.pid).toBe(process.pid);
  });
});

describe('open --new', () => {
  it("opens a fresh session with a name of its own instead of reusing the zip's open one", () => {
    const first = box.run(['open', zip, '--json']).json;
    expect(box.run(['open', zip, '--json']).json).toMatchObject({ name: 'app', already_open: true });
    const fresh = box.run(['open', zip, '--new', '--json']).json;
    expect(fresh.name).toBe('app-2');
    expect(fresh.already_open).toBeUndefined();
    expect(fresh.workspace_path).not.toBe(first.workspace_path);
    expect(names()).toStrictEqual(['app', 'app-2']);
  });

  it('does the same over MCP, where the server owns what it opens and prunes it as its own', async () => {
    const running = await liveJob('cli-job');
    const mcp = await connect(box.home);
    try {
      const a = await call(mcp.client, 'zipfs_open', { path: zip, new: true });
      const b = await call(mcp.client, 'zipfs_open', { path: zip, new: true });
      expect([a.data.name, b.data.name]).toStrictEqual(['app', 'app-2']);
      expect(record('app').owner.pid).not.toBe(running.pid);
      const pruned = await call(mcp.client, 'zipfs_prune', { all: true });
      expect(pruned.data.pruned.map((p: { name: string }) => p.name)).toStrictEqual(['app', 'app-2']);
      expect(pruned.data.skipped).toStrictEqual([
        {
          name: 'cli-job',
          reason: `its owner, process ${running.pid}, is still running (the job that opened it); pass include_live: true to remove it anyway`,
        },
      ]);
      await running.stop();
      const orphaned = await call(mcp.client, 'zipfs_prune', { orphaned: true });
      expect(orphaned.data.pruned.map((p: { name: string }) => p.name)).toStrictEqual(['cli-job']);
    } finally {
      await running.stop();
      await mcp.close();
    }
  });
});

describe('parallel jobs on one runner', () => {
  /** Starts `count` exec jobs on the zip at once, each adding part-N.txt after a pause; `homeOf` gives each job's data folder. */
  const startJobs = (count: number, homeOf: (n: number) => string) =>
    Array.from({ length: count }, (_, n) =>
      Bun.spawn([BINARY, 'exec', '--merge', zip, '--', 'sh', '-c', `sleep 0.3; echo ${n} > part-${n}.txt`], {
        env: shellEnv(homeOf(n)),
        stdout: 'pipe',
        stderr: 'pipe',
      }),
    );
  const finish = async (jobs: ReturnType<typeof startJobs>) =>
    Promise.all(
      jobs.map(async (child) => ({ code: await child.exited, stderr: await new Response(child.stderr).text() })),
    );
  const parts = () => {
    const listed = Bun.spawnSync([BINARY, 'inspect', zip, '--json'], { env: shellEnv() }).stdout.toString();
    return JSON.parse(listed)
      .entries.map((e: { name: string }) => e.name)
      .filter((n: string) => n.startsWith('part-'))
      .sort();
  };

  it('share a data folder: each exec has its own session, and another job pruning meanwhile removes none of them', async () => {
    const jobs = startJobs(4, () => box.home);
    await waitFor(() => names().length >= 4, { what: "the four jobs' sessions", intervalMs: 20 });
    // Another job's cleanup while they run: everything it may remove, it finds belonging to a live job.
    const all = job('"$ZIPFS" prune --all --json');
    const orphaned = job('"$ZIPFS" prune --orphaned --json');
    const results = await finish(jobs);
    expect(results.map((r) => r.code)).toStrictEqual([0, 0, 0, 0]);
    expect(JSON.parse(all.stdout).pruned).toStrictEqual([]);
    expect(JSON.parse(all.stdout).skipped.map((s: { reason: string }) => s.reason)).toStrictEqual(
      Array(4).fill(expect.stringContaining('is still running')),
    );
    expect(JSON.parse(orphaned.stdout).pruned).toStrictEqual([]);
    expect(parts()).toStrictEqual(['part-0.txt', 'part-1.txt', 'part-2.txt', 'part-3.txt']);
    expect(names()).toStrictEqual([]);
  });

  it('each with a data folder of its own: --merge takes in what the others synced', async () => {
    const results = await finish(startJobs(3, (n) => path.join(box.dir, `home-${n}`)));
    expect(results.map((r) => r.code)).toStrictEqual([0, 0, 0]);
    expect(parts()).toStrictEqual(['part-0.txt', 'part-1.txt', 'part-2.txt']);
  });
});
