/**
 * Programs the tests borrow (Info-ZIP, Python, bsdtar, setpriv) and what the
 * machine allows (root for mknod and tmpfs mounts). A test that needs one and
 * cannot have it is skipped, and its name says why; .ci/run installs them all.
 */
import fs from 'node:fs';
import path from 'node:path';

export function has(command: string): boolean {
  return Bun.which(command) !== null;
}

export const isRoot = process.getuid?.() === 0;

/** An unprivileged user for permission tests: nobody, when we are root and can drop to it. */
export const NOBODY = { uid: 65534, gid: 65534 };

/**
 * How to run zipfs as a normal user: as root, through setpriv as nobody (root
 * ignores permission bits, so chmod tests would prove nothing); as a normal
 * user, directly. Undefined when root cannot drop privileges here.
 */
export function unprivilegedPrefix(): string[] | undefined {
  if (!isRoot) return [];
  if (!has('setpriv')) return undefined;
  return ['setpriv', `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', '--'];
}

/** Hands a folder tree to the unprivileged user (a no-op when we are not root). */
export function giveToUnprivileged(dir: string): void {
  if (!isRoot) return;
  const visit = (target: string) => {
    fs.lchownSync(target, NOBODY.uid, NOBODY.gid);
    if (fs.lstatSync(target).isDirectory()) for (const name of fs.readdirSync(target)) visit(path.join(target, name));
  };
  visit(dir);
}

/** The dist/zipfs binary and every folder above it must be reachable by that user. */
export function binaryReachable(binary: string): boolean {
  for (let dir = path.dirname(binary); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return false;
  }
  return (fs.statSync(binary).mode & 0o001) !== 0;
}

/**
 * For a test or suite that borrows programs: `skip` when one is missing, and
 * `why`, to append to its name, saying which (bun prints skipped names), so a
 * fresh machine shows what it did not check. CI installs them all and treats
 * any skip as a failure (scripts/run-tests.ts).
 */
/** Where a program the tests borrow comes from on Debian, for the skip message. */
const DEBIAN_PACKAGES: Record<string, string> = {
  bsdtar: 'libarchive-tools',
  '7zz': '7zip',
  zipinfo: 'unzip',
  python3: 'python3',
  script: 'bsdutils',
  setpriv: 'util-linux',
  diff: 'diffutils',
  mkfifo: 'coreutils',
  javac: 'default-jdk-headless',
  jar: 'default-jdk-headless',
  java: 'default-jdk-headless',
  xz: 'xz-utils',
  lzma: 'xz-utils',
};

export function needs(...programs: string[]): { skip: boolean; why: string } {
  const missing = programs.filter((program) => !has(program));
  const packages = missing.map((program) => DEBIAN_PACKAGES[program] ?? program);
  return {
    skip: missing.length > 0,
    why:
      missing.length > 0
        ? ` (skipped: needs ${missing.join(', ')}: apt-get install ${[...new Set(packages)].join(' ')}; .ci/run does)`
        : '',
  };
}
