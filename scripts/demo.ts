#!/usr/bin/env bun
/**
 * The quick-start job: builds dist/zipfs and walks through the main workflow
 * on a copy of the bundled example archive, printing each command as a person
 * would type it. Uses a throwaway data directory (.cache/demo), so it never
 * touches yours, nor the bundled archive.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dir, '..');
const binary = path.join(root, 'dist', 'zipfs');
const work = path.join(root, '.cache', 'demo');
const home = path.join(work, 'home');
const archive = path.relative(root, path.join(work, 'reports.zip'));

const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], {
  cwd: root,
  stdout: 'inherit',
  stderr: 'inherit',
});
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
fs.copyFileSync(path.join(import.meta.dir, 'demo', 'reports.zip'), path.join(work, 'reports.zip'));

function shellQuote(arg: string): string {
  return /^[\w./=-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

function zipfs(...args: string[]): void {
  console.log(`\n$ zipfs ${args.map(shellQuote).join(' ')}`);
  const result = Bun.spawnSync([binary, ...args], {
    cwd: root,
    env: { ...process.env, ZIPFS_HOME: home },
    stdout: 'inherit',
    stderr: 'inherit',
  });
  if (result.exitCode !== 0) {
    console.error(`zipfs ${args[0]} failed with exit code ${result.exitCode}`);
    process.exit(result.exitCode ?? 1);
  }
}

zipfs('inspect', archive, '--max-entries', '5');
zipfs('open', archive);
zipfs('tree');
zipfs('read', 'data/config.json');
zipfs('grep', 'apac', 'data', '--max-results', '3');
zipfs('write', 'data/config.json', '{ "debug": true, "region": "emea", "currency": "EUR" }');
zipfs('write', 'docs/notes.md', 'Added by the zipfs demo.\n');
zipfs('edit', 'docs/notes.md', '--old', 'zipfs demo', '--new', 'zipfs demo, then edited');
zipfs('mv', 'docs/notes.md', 'docs/NOTES.md');
zipfs('delete', 'data/output.csv');
zipfs('status');
zipfs('diff', '--stat');
zipfs('sync');
zipfs('status');
zipfs('sessions');
zipfs('close');
// Another reader's view of the synced archive, where Info-ZIP is installed.
if (Bun.which('unzip')) {
  console.log(`\n$ unzip -l ${archive}`);
  Bun.spawnSync(['unzip', '-l', archive], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
}
console.log(
  `\nDone. The binary ` +
    `is ${path.relative(process.cwd(), binary)}; try \`${path.relative(process.cwd(), binary)} --help\`.`,
);
