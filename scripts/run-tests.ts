#!/usr/bin/env bun
/**
 * The whole suite: type-checks, builds dist/zipfs (the end-to-end tests drive
 * the compiled binary), runs `bun test`, and ends with one plain line
 * "N passed, N failed, N skipped" counted from bun's JUnit report, so CI can
 * read the outcome. Under CI=true a skipped test fails the run: CI installs
 * what every test needs. Arguments are passed to `bun test` (a file filter, -t NAME).
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dir, '..');
const report = path.join(root, '.cache', 'junit.xml');
fs.mkdirSync(path.dirname(report), { recursive: true });
fs.rmSync(report, { force: true });

const typecheck = Bun.spawnSync([path.join(root, 'node_modules', '.bin', 'tsc'), '--noEmit', '-p', root], {
  cwd: root,
  stdout: 'inherit',
  stderr: 'inherit',
});
if (typecheck.exitCode !== 0) {
  console.error('type errors: fix them first (bun run typecheck)');
  process.exit(typecheck.exitCode ?? 1);
}

const build = Bun.spawnSync([process.execPath, 'scripts/build.ts'], {
  cwd: root,
  stdout: 'inherit',
  stderr: 'inherit',
});
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const test = Bun.spawnSync(
  [
    process.execPath,
    'test',
    '--timeout=60000',
    '--reporter=junit',
    `--reporter-outfile=${report}`,
    ...process.argv.slice(2),
  ],
  {
    cwd: root,
    stdout: 'inherit',
    stderr: 'inherit',
  },
);

let counts = { tests: 0, failures: 0, skipped: 0 };
if (fs.existsSync(report)) {
  const xml = fs.readFileSync(report, 'utf8');
  const suites = xml.match(/<testsuites\b[^>]*>/)?.[0] ?? '';
  const attr = (name: string) => Number(suites.match(new RegExp(`\\b${name}="(\\d+)"`))?.[1] ?? 0);
  counts = { tests: attr('tests'), failures: attr('failures') + attr('errors'), skipped: attr('skipped') };
}
const passed = counts.tests - counts.failures - counts.skipped;
// CI installs every program the tests borrow (.ci/run), so there a skipped test is a check that did not run.
const skipsFail = process.env.CI === 'true' && counts.skipped > 0;
if (skipsFail && fs.existsSync(report)) {
  const skipped = [...fs.readFileSync(report, 'utf8').matchAll(/<testcase name="([^"]*)"[^>]*>\s*<skipped/g)].map(
    (m) => m[1],
  );
  console.error(`\nCI runs every test, but these were skipped:\n${skipped.map((name) => `  - ${name}`).join('\n')}`);
}
console.log(`\n${passed} passed, ${counts.failures} failed, ${counts.skipped} skipped`);
process.exit(test.exitCode === 0 && counts.tests > 0 && !skipsFail ? 0 : 1);
