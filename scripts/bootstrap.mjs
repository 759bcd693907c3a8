#!/usr/bin/env node
/**
 * Runs a project task on a machine that may have only Node.js and npm:
 * finds bun (the pinned version on PATH, or a copy in .cache/bun), installs
 * it from the npm registry when absent, installs the locked dependencies,
 * then hands over to `bun run <task>`.
 *   node scripts/bootstrap.mjs test   build the binary and run the whole suite
 *   node scripts/bootstrap.mjs demo   build the binary and run it on the bundled example
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BUN_VERSION = '1.4.5';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const localBun = path.join(
  root,
  '.cache',
  'bun',
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'bun.exe' : 'bun',
);

function versionOf(bun) {
  try {
    return execFileSync(bun, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function findOrInstallBun() {
  if (versionOf('bun') === BUN_VERSION) return 'bun';
  if (versionOf(localBun) === BUN_VERSION) return localBun;
  console.error(`zipfs: installing bun ${BUN_VERSION} from the npm registry into .cache/bun (one time)`);
  run('npm', [
    'install',
    '--prefix',
    path.join(root, '.cache', 'bun'),
    '--no-save',
    '--no-package-lock',
    '--no-audit',
    '--no-fund',
    '--loglevel=error',
    `bun@${BUN_VERSION}`,
  ]);
  if (versionOf(localBun) !== BUN_VERSION) {
    console.error(
      `zipfs: bun ${BUN_VERSION} did not install into ${localBun}; install bun yourself (npm install -g ` +
        `bun@${BUN_VERSION}) and retry.`,
    );
    process.exit(1);
  }
  return localBun;
}

const task = process.argv[2];
if (!task) {
  console.error(
    'usage: node scripts/bootstrap.mjs <task> [args...]   (tasks: the scripts in package.json, e.g. test:all, ' +
      'demo:run)',
  );
  process.exit(2);
}
const bun = findOrInstallBun();
// Tasks that call `bun` themselves must find the same one.
const env =
  bun === 'bun' ? process.env : { ...process.env, PATH: `${path.dirname(bun)}${path.delimiter}${process.env.PATH}` };
run(bun, ['install', '--frozen-lockfile', ...(existsSync(path.join(root, 'node_modules')) ? ['--silent'] : [])], {
  env,
});
run(bun, ['run', task, ...process.argv.slice(3)], { env });
