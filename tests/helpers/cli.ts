/** Drives the compiled binary as a person or a script would. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BINARY } from './ensure-binary.ts';
import { reportsZip } from './fixtures.ts';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json: any;
}

/** A fresh data directory and scratch folder, removed by `cleanup()`. */
export function sandbox(): {
  home: string;
  dir: string;
  cleanup(): void;
  run(args: string[], options?: RunOptions): RunResult;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-test-'));
  const home = path.join(dir, 'home');
  return {
    home,
    dir,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
    run: (args, options = {}) => runZipfs(args, { ...options, env: { ZIPFS_HOME: home, ...options.env } }),
  };
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  stdin?: string;
  /** Kill the run after this long (a hang guard: a hung zipfs fails the test instead of stalling the suite). */
  timeoutMs?: number;
  /** Run as this command prefix (setpriv to drop root; see tools.ts). */
  prefix?: string[];
}

export function runZipfs(args: string[], options: RunOptions = {}): RunResult {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({
    ...process.env,
    NO_COLOR: '1',
    ZIPFS_SESSION: undefined,
    ...options.env,
  })) {
    if (value !== undefined) env[key] = value;
  }
  const result = Bun.spawnSync([...(options.prefix ?? []), BINARY, ...args], {
    env,
    cwd: options.cwd,
    stdin: options.stdin !== undefined ? Buffer.from(options.stdin) : 'ignore',
    timeout: options.timeoutMs ?? 60_000,
    killSignal: 'SIGKILL', // a zipfs hung in a system call may not hear SIGTERM
  });
  if (result.exitedDueToTimeout)
    throw new Error(`zipfs ${args.join(' ')} did not finish within ${options.timeoutMs ?? 60_000} ms (hung)`);
  const stdout = result.stdout.toString();
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code: result.exitCode ?? -1, stdout, stderr: result.stderr.toString(), json };
}

/** Writes an archive into the sandbox and returns its path. */
export function writeZip(dir: string, name: string, bytes: Uint8Array): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

/** A fresh sandbox with the reports fixture as reports.zip, opened as session "reports" when asked. */
export function reportsSandbox(open: boolean): { box: ReturnType<typeof sandbox>; zip: string; root: string } {
  const box = sandbox();
  const zip = writeZip(box.dir, 'reports.zip', reportsZip());
  const root = open ? box.run(['open', zip, '--json']).json.workspace_path : '';
  return { box, zip, root };
}
