/**
 * A case-insensitive folder for a test on Linux: casefold-fs.py (FUSE, through
 * Debian's python3-fusepy) mounted over a fresh backing folder, so zipfs runs
 * natively on the rules of macOS and Windows folders. The kernel here has no
 * case-folding ext4, vfat or XFS; FUSE is what it has.
 *
 * Mounts never outlive their test run: `unmount()` (call it in afterAll) stops
 * the server, which unmounts (lazily, so a busy mount goes too), falls back to
 * fusermount -uz / umount -l, and removes the folders only once nothing is
 * mounted on them; the server unmounts itself when the process that started
 * it ends (bun test runs no exit handlers, and may be killed); and each new
 * mount first detaches mounts whose server is gone (they are named
 * casefold-fs.PID in /proc/self/mountinfo) and removes their folders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { has, isRoot } from './tools.ts';

const SERVER = path.join(import.meta.dir, 'casefold-fs.py');
const SCRATCH_PREFIX = 'zipfs-casefold-';
/**
 * Debian's own interpreter first: python3-fusepy installs there, and a python3 earlier on PATH (pyenv, a venv) does not
 * see it.
 */
const PYTHONS = ['/usr/bin/python3', 'python3'];
const IMPORT = 'try:\n import fusepy\nexcept ImportError:\n import fuse';
const INSTALL = 'apt-get install python3-fusepy fuse3; .ci/run does';

export interface CasefoldMount {
  /** The case-insensitive folder (the mount point). */
  path: string;
  /** The folder behind it, case-sensitive: the names really stored. */
  backing: string;
  /** Unmounts, stops the server and removes both folders; safe to call again. */
  unmount(): void;
}

let python: string | null | undefined;
/** The first interpreter that imports fusepy (which also loads libfuse.so.2); null when none does. */
function fusePython(): string | null {
  if (python === undefined) {
    python =
      PYTHONS.find(
        (candidate) =>
          (candidate.includes('/') ? fs.existsSync(candidate) : has(candidate)) &&
          Bun.spawnSync([candidate, '-c', IMPORT], { stdout: 'ignore', stderr: 'ignore' }).exitCode === 0,
      ) ?? null;
  }
  return python;
}

/**
 * Whether this machine can mount the case-folding file system, and if not, the reason to append to a skipped test's
 * name.
 */
export function casefoldAvailable(): { skip: boolean; why: string } {
  const missing = casefoldMissing();
  return { skip: missing !== undefined, why: missing === undefined ? '' : ` (skipped: ${missing})` };
}

function casefoldMissing(): string | undefined {
  if (process.platform !== 'linux')
    return (
      'a case-insensitive folder is mounted with Linux FUSE; on macOS and Windows the ordinary folders already ' +
      'are one'
    );
  try {
    fs.accessSync('/dev/fuse', fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return 'needs /dev/fuse, readable and writable (a container needs --device /dev/fuse and CAP_SYS_ADMIN)';
  }
  if (!fusePython()) return `needs Python with fusepy and libfuse2: ${INSTALL}`;
  // Root mounts directly; anyone else goes through the setuid fusermount (fuse3's answers libfuse2 too).
  if (!isRoot && !has('fusermount') && !has('fusermount3'))
    return `needs fusermount to mount as a normal user: ${INSTALL}`;
  return undefined;
}

interface Mounted {
  mountpoint: string;
  source: string;
}

/** FUSE mounts of casefold-fs, from mountinfo (whose fields escape space, tab, newline and backslash as \ooo). */
function casefoldMounts(): Mounted[] {
  const unescape = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
  const mounts: Mounted[] = [];
  for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after) continue;
    const [type, source] = after.split(' ');
    if (type === 'fuse.casefold')
      mounts.push({ mountpoint: unescape(before.split(' ')[4]!), source: unescape(source!) });
  }
  return mounts;
}

function isMounted(mountpoint: string): boolean {
  return casefoldMounts().some((mount) => mount.mountpoint === mountpoint);
}

/** The command line of a running process; '' when it is gone (a zombie has none, a reaped one no /proc entry). */
function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Whether a casefold-fs server runs as `pid` (not another program that was given the number since). */
function alive(pid: number): boolean {
  return commandLine(pid).includes('casefold-fs.py');
}

/** Detaches the mount whatever state its server is in (a dead server leaves "Transport endpoint is not connected"). */
function detach(mountpoint: string): void {
  const ways = [['fusermount3', '-u', '-z'], ['fusermount', '-u', '-z'], ...(isRoot ? [['umount', '-l']] : [])];
  for (const way of ways) {
    if (!isMounted(mountpoint)) return;
    if (has(way[0]!)) Bun.spawnSync([...way, mountpoint], { stdout: 'ignore', stderr: 'ignore' });
  }
}

/**
 * What runs that ended without their cleanup left: mounts whose server is gone (a run killed before
 * afterAll, a server killed outright) are detached, and then their folders removed. A folder whose
 * server is running, or not started yet (no server.pid), belongs to a run in progress and is left alone.
 */
function removeLeftovers(): void {
  for (const mount of casefoldMounts()) {
    const pid = Number(/^casefold-fs\.(\d+)$/.exec(mount.source)?.[1]);
    if (pid && !alive(pid)) detach(mount.mountpoint);
  }
  const mounted = new Set(casefoldMounts().map((mount) => mount.mountpoint));
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const scratch = path.join(os.tmpdir(), name);
    let pid: number;
    try {
      pid = Number(fs.readFileSync(path.join(scratch, 'server.pid'), 'utf8'));
    } catch {
      continue;
    }
    // Any process as `pid` keeps the folder: a server just spawned may not have exec'd python yet.
    if (pid && commandLine(pid) === '' && !mounted.has(path.join(scratch, 'mnt')))
      fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Waits for a process to end, up to `limitMs`; the cleanup must not hang on a stuck server. */
function waitGone(pid: number, limitMs: number): boolean {
  for (const start = Date.now(); Date.now() - start < limitMs; Bun.sleepSync(20)) if (!alive(pid)) return true;
  return !alive(pid);
}

/** Mounts a fresh case-insensitive folder; resolves once the kernel serves it. */
export async function mountCasefold(): Promise<CasefoldMount> {
  const interpreter = fusePython();
  if (!interpreter) throw new Error(`casefold-fs cannot run: ${casefoldMissing()}`);
  removeLeftovers();
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), SCRATCH_PREFIX));
  const backing = path.join(scratch, 'backing');
  const mountpoint = path.join(scratch, 'mnt');
  fs.mkdirSync(backing);
  fs.mkdirSync(mountpoint);
  const logPath = path.join(scratch, 'server.log');
  const log = fs.openSync(logPath, 'w');
  const server = Bun.spawn([interpreter, SERVER, backing, mountpoint], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: log,
  });
  fs.closeSync(log);
  fs.writeFileSync(path.join(scratch, 'server.pid'), String(server.pid));

  let done = false;
  const mount: CasefoldMount = {
    path: mountpoint,
    backing,
    unmount() {
      if (done) return;
      done = true;
      server.kill('SIGTERM'); // libfuse unmounts on it, lazily when the mount is busy
      if (!waitGone(server.pid, 10_000)) server.kill('SIGKILL');
      detach(mountpoint);
      // Never remove through a mount: only a plain folder is deleted.
      if (isMounted(mountpoint))
        throw new Error(`casefold-fs: ${mountpoint} is still mounted; run fusermount3 -uz ${mountpoint}`);
      fs.rmSync(scratch, { recursive: true, force: true });
    },
  };
  try {
    // The server prints "ready" from FUSE's INIT, which the kernel sends once the mount exists.
    const reader = server.stdout.getReader();
    const decoder = new TextDecoder();
    let said = '';
    while (!said.includes('ready\n')) {
      const { value, done: ended } = await reader.read();
      if (ended)
        throw new Error(
          `casefold-fs did not ` +
            `mount ${mountpoint} (exit ${await server.exited}): ` +
            `${fs.readFileSync(logPath, 'utf8').trim().split('\n').slice(-5).join(' | ')}`,
        );
      said += decoder.decode(value, { stream: true });
    }
    reader.releaseLock();
    if (!isMounted(mountpoint))
      throw new Error(`casefold-fs said ready but ${mountpoint} is not in /proc/self/mountinfo`);
  } catch (error) {
    mount.unmount();
    throw error;
  }
  return mount;
}
