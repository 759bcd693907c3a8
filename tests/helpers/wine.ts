/**
 * Drives the real Windows binary, dist/windows-x64/zipfs.exe, under Wine as a
 * Windows user or script would: Windows paths (Z:\...), a Windows ZIPFS_HOME,
 * exit codes and output as cli.ts returns them for dist/zipfs. Wine 8.0 (Debian
 * bookworm) is what CI installs; its gaps and how this works around them are in
 * ../shared/tools/wine/README.md and below. `wine` says whether the tests can
 * run here and, when not, why (appended to the suite's name, as tools.ts does).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWineShim, WINDOWS_DIR } from '../../scripts/build-windows.ts';
import { windowsRuntime } from '../../scripts/windows-runtime.ts';
import type { RunResult } from './cli.ts';
import { has } from './tools.ts';

const root = path.resolve(import.meta.dir, '../..');
/** Not on PATH on Debian: /usr/bin/wine is a wrapper that wants the 32-bit loader too. */
export const WINE64 = '/usr/lib/wine/wine64';
const WINESERVER = '/usr/lib/wine/wineserver';
export const EXE = path.join(WINDOWS_DIR, 'zipfs.exe');
/** One prefix for every run, kept in .cache: creating one takes seconds (wineboot). */
const PREFIX = path.join(root, '.cache', 'wine', 'prefix');
/** Windows-side helper programs the tests build (tests/helpers/wine-tools). */
const TOOLS_DIR = path.join(root, '.cache', 'wine', 'tools');
const TOOLS_SOURCE = path.join(import.meta.dir, 'wine-tools');

/** Linux path -> the Windows path a program under Wine sees it as (Wine maps / to Z:). */
export function toWindows(linuxPath: string): string {
  return `Z:${path.resolve(linuxPath).replaceAll('/', '\\')}`;
}

/** The environment of every Wine process: nothing of the host's ZIPFS_* or XDG_*, no display. */
function wineEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    USER: process.env.USER,
    WINEPREFIX: PREFIX,
    WINEDEBUG: '-all',
    // No Mono or Gecko: their installers would be offered (or fetched) when the prefix is made.
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
    NO_COLOR: '1',
    ...extra,
  };
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/**
 * Runs a Wine command to its end and returns what it printed. Output goes through files, not
 * pipes: the wineserver holds on to a Windows program's standard handles after the program
 * exits, until the server itself exits (seconds later), so a reader waiting for a pipe's end
 * waits for the server (measured: 2.5 s a call, 32 s under a server kept for 30 s, against
 * 0.1 s with files).
 * stdin is a file too: Wine 8.0 cannot read a Linux pipe as a Windows program's stdin.
 */
function spawnWine(
  command: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; cwd?: string; timeoutMs?: number } = {},
): { code: number; stdout: string; stderr: string } {
  const timeout = options.timeoutMs ?? 60_000;
  const io = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-wine-io-'));
  try {
    if (options.stdin !== undefined) fs.writeFileSync(path.join(io, 'stdin'), options.stdin);
    const result = Bun.spawnSync(command, {
      env: wineEnv(options.env),
      cwd: options.cwd,
      stdin: options.stdin !== undefined ? Bun.file(path.join(io, 'stdin')) : 'ignore',
      stdout: Bun.file(path.join(io, 'stdout')),
      stderr: Bun.file(path.join(io, 'stderr')),
      timeout,
    });
    if (result.exitedDueToTimeout)
      throw new Error(`${command.slice(1).join(' ')} under Wine did not finish within ${timeout} ms (hung)`);
    const read = (name: string) =>
      fs.existsSync(path.join(io, name)) ? fs.readFileSync(path.join(io, name), 'utf8') : '';
    return { code: result.exitCode ?? -1, stdout: read('stdout'), stderr: read('stderr') };
  } finally {
    fs.rmSync(io, { recursive: true, force: true });
  }
}

function newestMtime(...files: string[]): number {
  let newest = 0;
  for (const file of files) {
    const stats = fs.statSync(file);
    newest = Math.max(
      newest,
      stats.isDirectory() ? newestMtime(...fs.readdirSync(file).map((name) => path.join(file, name))) : stats.mtimeMs,
    );
  }
  return newest;
}

const mtime = (file: string) => (fs.existsSync(file) ? fs.statSync(file).mtimeMs : 0);

/** zipfs.exe and the shim beside it, rebuilt when src/ changed since (as ensure-binary.ts does for dist/zipfs). */
function ensureExe(): void {
  if (
    mtime(EXE) >= newestMtime(path.join(root, 'src'), path.join(root, 'package.json')) &&
    fs.existsSync(path.join(WINDOWS_DIR, 'bcryptprimitives.dll'))
  )
    return;
  const result = Bun.spawnSync([process.execPath, 'scripts/build-windows.ts', '--wine-shim'], {
    cwd: root,
    stdout: 'ignore',
    stderr: 'pipe',
  });
  if (result.exitCode !== 0)
    throw new Error(
      `building zipfs.exe failed (bun run build:windows -- ` +
        `--wine-shim): ${result.stderr.toString().trim().split('\n').at(-1)}`,
    );
}

/**
 * hold-file.exe (C, mingw-w64) and mcp-client.exe (TypeScript, compiled with Bun's Windows runtime), with the shim
 * beside them.
 */
function ensureTools(): void {
  fs.mkdirSync(TOOLS_DIR, { recursive: true });
  const hold = path.join(TOOLS_DIR, 'hold-file.exe');
  if (mtime(hold) < mtime(path.join(TOOLS_SOURCE, 'hold-file.c'))) {
    const gcc = Bun.spawnSync(
      ['x86_64-w64-mingw32-gcc', '-municode', '-O2', '-o', hold, path.join(TOOLS_SOURCE, 'hold-file.c')],
      { stderr: 'pipe' },
    );
    if (gcc.exitCode !== 0) throw new Error(`building hold-file.exe failed: ${gcc.stderr.toString().trim()}`);
  }
  const client = path.join(TOOLS_DIR, 'mcp-client.exe');
  if (mtime(client) < Math.max(mtime(path.join(TOOLS_SOURCE, 'mcp-client.ts')), mtime(path.join(root, 'bun.lock')))) {
    const args = [
      'build',
      '--compile',
      '--minify',
      '--target=bun-windows-x64',
      `--compile-executable-path=${windowsRuntime()}`,
      path.join(TOOLS_SOURCE, 'mcp-client.ts'),
      '--outfile',
      client,
    ];
    const built = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: 'ignore', stderr: 'pipe' });
    if (built.exitCode !== 0)
      throw new Error(`building mcp-client.exe failed: ${built.stderr.toString().trim().split('\n').at(-1)}`);
  }
  if (!fs.existsSync(path.join(TOOLS_DIR, 'bcryptprimitives.dll'))) buildWineShim(TOOLS_DIR);
}

/**
 * The prefix, made once (wineboot, ~6 s) and kept; later runs find it. The wineserver writes the
 * registry (system.reg) only as it exits, so this waits for it (`wineserver -w`, ~5 s): a prefix
 * without its registry would be set up again, slowly, by the next Windows program started.
 */
function ensurePrefix(): void {
  if (fs.existsSync(path.join(PREFIX, 'system.reg'))) return;
  fs.mkdirSync(path.dirname(PREFIX), { recursive: true });
  const boot = spawnWine([WINE64, 'wineboot', '--init'], { timeoutMs: 180_000 });
  if (boot.code === 0) spawnWine([WINESERVER, '-w'], { timeoutMs: 120_000 });
  if (boot.code !== 0 || !fs.existsSync(path.join(PREFIX, 'system.reg')))
    throw new Error(`wineboot --init failed (exit ${boot.code}): ${boot.stderr.trim()}`);
}

/**
 * A wineserver kept for 10 s after the last Windows program ends: one left to start on demand
 * exits between two programs now and then, and the next one pays 0.5-1 s to start another
 * (measured: 100 ms a call with it, up to 1.1 s without). Its output goes nowhere (see spawnWine);
 * when one is already running, this one sees it and exits.
 */
function keepServer(): void {
  Bun.spawnSync([WINESERVER, '-p10'], { env: wineEnv(), stdio: ['ignore', 'ignore', 'ignore'] });
}

function readiness(): { skip: boolean; why: string } {
  const missing = [
    fs.existsSync(WINE64) ? '' : 'wine64',
    has('x86_64-w64-mingw32-gcc') ? '' : 'x86_64-w64-mingw32-gcc',
  ].filter(Boolean);
  if (missing.length > 0)
    return {
      skip: true,
      why: ` (skipped: needs ${missing.join(', ')}: apt-get install wine64 wine mingw-w64; .ci/run does)`,
    };
  try {
    ensureExe();
    ensureTools();
    ensurePrefix();
    keepServer();
  } catch (error) {
    return { skip: true, why: ` (skipped: ${(error as Error).message})` };
  }
  return { skip: false, why: '' };
}

/** Whether zipfs.exe can run here; `why` is empty when it can. */
export const wine = readiness();

export interface WineRunOptions {
  /** Variables for zipfs.exe (Wine hands the Linux environment to the Windows process). */
  env?: Record<string, string | undefined>;
  /**
   * Variables Wine sets itself at every process start (USERPROFILE, LOCALAPPDATA, APPDATA):
   * a value from the Linux environment is overwritten, so these are set by cmd.exe just
   * before it starts zipfs.exe. Values must not hold cmd's special characters (& | < > ^ ").
   */
  windowsEnv?: Record<string, string>;
  /** stdin as bytes: Wine 8.0 cannot read a Linux pipe as stdin, so they go through a file. */
  stdin?: string;
  cwd?: string;
  /** A hang guard: a hung zipfs.exe fails the test instead of stalling the suite. */
  timeoutMs?: number;
}

/** Runs `zipfs.exe ARGS` under Wine; `json` is stdout parsed when it is JSON. */
export function runExe(args: string[], options: WineRunOptions = {}): RunResult {
  // cmd.exe gets one command line: arguments with spaces or cmd's special characters cannot go this way.
  const command = options.windowsEnv
    ? [
        WINE64,
        'cmd',
        '/c',
        `${Object.entries(options.windowsEnv)
          .map(([key, value]) => `set ${key}=${value}&& `)
          .join('')}${toWindows(EXE)} ${args.join(' ')}`,
      ]
    : [WINE64, EXE, ...args];
  const result = spawnWine(command, {
    env: { ZIPFS_SESSION: undefined, ...options.env },
    stdin: options.stdin,
    cwd: options.cwd,
    timeoutMs: options.timeoutMs,
  });
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { ...result, json };
}

/** A fresh scratch folder whose `home` is ZIPFS_HOME, given to zipfs.exe as a Windows path. */
export function wineSandbox(): {
  dir: string;
  home: string;
  cleanup(): void;
  run(args: string[], options?: WineRunOptions): RunResult;
} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-wine-'));
  const home = path.join(dir, 'home');
  return {
    dir,
    home,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
    run: (args, options = {}) => runExe(args, { ...options, env: { ZIPFS_HOME: toWindows(home), ...options.env } }),
  };
}

/**
 * Another Windows program holding `file` open (hold-file.exe): with no sharing, as Office
 * holds a document, or sharing reads only, as a viewer does. Resolves once it holds it;
 * `release()` makes it close the file and waits for it to exit.
 */
export async function holdOpen(file: string, share: 'none' | 'read'): Promise<{ release(): Promise<void> }> {
  const io = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-wine-hold-'));
  const said = path.join(io, 'stdout');
  const holder = Bun.spawn(
    [WINE64, path.join(TOOLS_DIR, 'hold-file.exe'), toWindows(file), share, toWindows(path.join(io, 'release'))],
    {
      env: wineEnv(),
      stdin: 'ignore',
      stdout: Bun.file(said), // a file, not a pipe: see spawnWine
      stderr: Bun.file(path.join(io, 'stderr')),
    },
  );
  const read = (name: string) =>
    fs.existsSync(path.join(io, name)) ? fs.readFileSync(path.join(io, name), 'utf8') : '';
  for (let waited = 0; !read('stdout').includes('held'); waited += 20) {
    if (holder.exitCode !== null || waited > 60_000) {
      holder.kill();
      throw new Error(`hold-file.exe did not hold ${file} (exit ${holder.exitCode}): ${read('stderr')}`);
    }
    await Bun.sleep(20);
  }
  return {
    release: async () => {
      fs.writeFileSync(path.join(io, 'release'), '');
      await holder.exited;
      fs.rmSync(io, { recursive: true, force: true });
    },
  };
}

/** What mcp-client.exe printed: the server's info, its tool names, and each call's answer in order. */
export interface McpTranscript {
  server: { name: string; version: string };
  tools: string[];
  results: { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean }[];
}

/** Runs the Windows-side MCP client against `zipfs.exe mcp`, making `calls` one after another. */
export function mcpCalls(
  env: Record<string, string>,
  calls: { name: string; arguments?: Record<string, unknown> }[],
): McpTranscript {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-wine-mcp-'));
  try {
    fs.writeFileSync(path.join(dir, 'calls.json'), JSON.stringify(calls));
    const result = spawnWine(
      [WINE64, path.join(TOOLS_DIR, 'mcp-client.exe'), toWindows(EXE), toWindows(path.join(dir, 'calls.json'))],
      // The server's root (issue 33): the scratch folders are in the temporary folder.
      { env: { ZIPFS_ROOTS: toWindows(os.tmpdir()), ...env }, timeoutMs: 120_000 },
    );
    if (result.code !== 0) throw new Error(`mcp-client.exe exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Whether this Wine renames a file to another case of its own name (a.txt -> A.txt).
 * Wine 8.0 reports success and changes nothing; Windows renames it. Asked of Windows
 * itself (cmd's ren), not of zipfs, so a test can tell Wine's gap from zipfs's.
 */
export function caseOnlyRenameWorks(): boolean {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-wine-case-'));
  try {
    fs.writeFileSync(path.join(dir, 'probe.txt'), '');
    spawnWine([WINE64, 'cmd', '/c', 'ren', toWindows(path.join(dir, 'probe.txt')), 'PROBE.txt']);
    return fs.readdirSync(dir).includes('PROBE.txt');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
