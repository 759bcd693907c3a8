#!/usr/bin/env bun
/**
 * Side-by-side benchmark: zipfs against Info-ZIP and friends on the same
 * archives, interleaved round by round after a warm-up, reported as medians
 * and ratios against a reference row. Timings never go into tests.
 *   bun run bench                 every task at --scale 1
 *   bun run bench -- --scale 0.5 --rounds 5
 *   bun run bench -- --quick      a smoke run in well under a minute
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runRounds, type Contender } from './bench/rounds.ts';
import { report } from './bench/report.ts';

const root = path.resolve(import.meta.dir, '..');
const { values } = parseArgs({
  options: { scale: { type: 'string', default: '1' }, rounds: { type: 'string', default: '5' }, quick: { type: 'boolean', default: false } },
});
const scale = values.quick ? 0.02 : Number(values.scale);
const rounds = values.quick ? 2 : Number(values.rounds);
const binary = path.join(root, 'dist', 'zipfs');
const cache = path.join(root, '.cache', 'bench');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-bench-'));

if (Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root, stderr: 'inherit' }).exitCode !== 0) process.exit(1);
const made = Bun.spawnSync(['python3', path.join(import.meta.dir, 'bench', 'make-archives.py'), cache, String(scale), 'media'], { stderr: 'inherit' });
if (made.exitCode !== 0) process.exit(1);
const media = made.stdout.toString().trim();

/** Sync of one small changed file: zipfs against `zip -u`, with a plain copy as the floor. */
function syncTask(): Contender[] {
  const home = path.join(scratch, 'home');
  const forZipfs = path.join(scratch, 'zipfs.zip');
  const forInfoZip = path.join(scratch, 'infozip.zip');
  const infoZipDir = path.join(scratch, 'infozip-dir');
  fs.copyFileSync(media, forZipfs);
  fs.copyFileSync(media, forInfoZip);
  fs.mkdirSync(infoZipDir, { recursive: true });
  const env = { ...process.env, ZIPFS_HOME: home };
  const workspace = JSON.parse(Bun.spawnSync([binary, 'open', forZipfs, '--json'], { env }).stdout.toString()).workspace_path;
  let round = 0;
  const change = (dir: string) => {
    const file = path.join(dir, 'notes.txt');
    fs.writeFileSync(file, `release notes, round ${++round}\n`);
    // zip -u only replaces entries older than the file, at DOS-time (2 s) resolution: step well ahead.
    const later = new Date(Date.now() + round * 10_000);
    fs.utimesSync(file, later, later);
  };
  return [
    { name: 'zip -u (Info-ZIP)', reference: true, prepare: () => change(infoZipDir), command: ['zip', '-q', '-u', forInfoZip, 'notes.txt'], cwd: infoZipDir },
    { name: 'zipfs sync', prepare: () => change(workspace), command: [binary, 'sync'], env },
    { name: 'cp (copy floor)', prepare: () => fs.rmSync(path.join(scratch, 'copy.zip'), { force: true }), command: ['cp', media, path.join(scratch, 'copy.zip')] },
  ];
}

try {
  const size = fs.statSync(media).size;
  console.log(`# zipfs benchmark\n\n${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.cpus()[0]?.model ?? 'unknown CPU'}; scale ${scale}, ${rounds} rounds after a warm-up\n`);
  const results = runRounds(syncTask(), rounds);
  console.log(report(`Sync one small changed file into the media archive (${(size / 2 ** 20).toFixed(0)} MiB)`, results, size));
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
