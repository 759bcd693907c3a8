#!/usr/bin/env bun
/**
 * Fuzzes the compiled binary with mutants of the corpus and of built archives.
 *   bun run fuzz -- --count 5000 --seed 7     the long run (the suite runs a few hundred)
 * Prints how many opened, synced and were refused by which code, and every
 * broken promise with the mutant that breaks it (its folder is kept in
 * .cache/fuzz to reproduce it). Exits 1 when anything broke.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz/run.ts';
import { loadSeeds } from './fuzz/seeds.ts';

const root = path.resolve(import.meta.dir, '..');
const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '3' },
  },
});
const binary = path.join(root, 'dist', 'zipfs');
if (!fs.existsSync(binary)) {
  console.error('fuzz: dist/zipfs is missing; build it first (bun run build)');
  process.exit(2);
}
const scratch = path.join(root, '.cache', 'fuzz', `seed-${values.seed}`);
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(scratch, { recursive: true });

const started = performance.now();
const report = await runFuzz({
  binary,
  seeds: loadSeeds(path.resolve(root, '../shared/corpus')),
  count: Number(values.count),
  seed: Number(values.seed),
  scratch,
  concurrency: Number(values.concurrency),
  log: (line) => console.error(line),
});
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `fuzz: ${report.mutants} mutants (seed ${values.seed}) ` +
    `in ${seconds} s: ${report.opened} opened, ${report.synced} synced and checked, ` +
    `refused: ${JSON.stringify(report.refused)}`,
);
const failures = [...report.failures, ...Object.values(report.reference).flat()];
for (const failure of failures) console.log(`FAIL ${failure}`);
const unchecked = (['unzip', 'python'] as const).filter((reader) => report.reference[reader] === undefined);
if (unchecked.length > 0) console.log(`fuzz: not checked by ${unchecked.join(', ')} (not installed)`);
console.log(
  failures.length === 0
    ? 'fuzz: no broken promise'
    : `fuzz: ${failures.length} broken promises; their folders are kept in ${scratch}`,
);
process.exit(failures.length === 0 ? 0 : 1);
