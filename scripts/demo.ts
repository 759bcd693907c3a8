#!/usr/bin/env bun
/**
 * The quick-start job: builds dist/zipfs and walks through the main workflow
 * on the bundled example archive, printing each command as a person would type it.
 * Uses a throwaway data directory (.cache/demo-home), so it never touches yours.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dir, '..');
const binary = path.join(root, 'dist', 'zipfs');
const home = path.join(root, '.cache', 'demo-home');
const archive = path.relative(root, path.join(import.meta.dir, 'demo', 'reports.zip'));

const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root, stdout: 'inherit', stderr: 'inherit' });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
fs.rmSync(home, { recursive: true, force: true });

function zipfs(...args: string[]): void {
  console.log(`\n$ zipfs ${args.join(' ')}`);
  const result = Bun.spawnSync([binary, ...args], { cwd: root, env: { ...process.env, ZIPFS_HOME: home }, stdout: 'inherit', stderr: 'inherit' });
  if (result.exitCode !== 0) {
    console.error(`zipfs ${args[0]} failed with exit code ${result.exitCode}`);
    process.exit(result.exitCode ?? 1);
  }
}

zipfs('open', archive);
zipfs('tree');
zipfs('ls', 'data');
zipfs('read', 'data/config.json');
zipfs('sessions');
zipfs('close');
console.log(`\nDone. The binary is ${path.relative(process.cwd(), binary)}; try \`${path.relative(process.cwd(), binary)} --help\`.`);
