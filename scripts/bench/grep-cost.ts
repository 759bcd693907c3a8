/**
 * grep: throughput over text files against GNU grep on the same files, and
 * peak memory of one grep over a single large text file (the worker streams
 * each file in pieces, so it should stay flat whatever the file's size).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Contender } from './rounds.ts';

/** About 1 MiB of varied log-like lines, one in a thousand holding NEEDLE; the same on every run. */
function textBlock(): Buffer {
  const words =
    'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(' ');
  let state = 1;
  const next = (below: number) => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0), state % below);
  const lines: string[] = [];
  for (let i = 0; i < 16_000; i++) {
    const said = Array.from({ length: 3 + next(16) }, () => words[next(words.length)]).join(' ');
    lines.push(`${String(i).padStart(6, '0')} ${said}${i % 1000 === 7 ? ' NEEDLE' : ''}\n`);
  }
  return Buffer.from(lines.join(''));
}

/** Writes `bytes` of text to `file`, the block over and over. */
function writeText(file: string, bytes: number, block: Buffer): void {
  const fd = fs.openSync(file, 'w');
  try {
    for (let at = 0; at < bytes; at += block.length) fs.writeSync(fd, block, 0, Math.min(block.length, bytes - at));
  } finally {
    fs.closeSync(fd);
  }
}

/** A session (in its own ZIPFS_HOME under `dir`) whose workspace the caller fills. */
function emptySession(binary: string, dir: string): { env: Record<string, string | undefined>; workspace: string } {
  const zip = path.join(dir, 'empty.zip');
  fs.writeFileSync(zip, Buffer.from('504b0506000000000000000000000000000000000000', 'hex'));
  // The time budget raised: the benchmark measures the whole search, not where the budget stops it.
  const env = { ...process.env, ZIPFS_HOME: path.join(dir, 'home'), ZIPFS_GREP_TIME_BUDGET_MS: '600000' };
  const opened = JSON.parse(Bun.spawnSync([binary, 'open', zip, '--json'], { env }).stdout.toString());
  return { env, workspace: opened.workspace_path };
}

/** grep -c, grep -ci and zipfs grep --count-all over `bytes` of text in 20 files. */
export function grepContenders(binary: string, scratch: string, bytes: number): Contender[] {
  const { env, workspace } = emptySession(binary, fs.mkdtempSync(path.join(scratch, 'grep-')));
  const block = textBlock();
  const files = Array.from({ length: 20 }, (_, i) => path.join(workspace, `log${String(i).padStart(2, '0')}.txt`));
  for (const file of files) writeText(file, bytes / files.length, block);
  // Into a file: GNU grep writing to /dev/null (the runner's stdout) stops at the first match, as -q does.
  const counts = path.join(scratch, 'grep-counts.txt');
  const gnu = (...args: string[]) => [
    'sh',
    '-c',
    'out=$1; shift; exec grep "$@" > "$out"',
    'sh',
    counts,
    ...args,
    ...files,
  ];
  return [
    { name: 'grep -c NEEDLE (GNU, a literal)', reference: true, command: gnu('-c', 'NEEDLE') },
    { name: 'grep -ci needle (GNU)', command: gnu('-ci', 'needle') },
    { name: 'zipfs grep NEEDLE --count-all', command: [binary, 'grep', 'NEEDLE', '--count-all', '-m', '1'], env },
    {
      name: 'zipfs grep -i needle --count-all',
      command: [binary, 'grep', '-i', 'needle', '--count-all', '-m', '1'],
      env,
    },
  ];
}

/** Peak RSS and time of a grep counting every match in one text file of `bytes`. */
export function grepLargeFile(binary: string, scratch: string, bytes: number): { seconds: number; peakRssKiB: number } {
  const dir = fs.mkdtempSync(path.join(scratch, 'grep-large-'));
  const { env, workspace } = emptySession(binary, dir);
  writeText(path.join(workspace, 'large.txt'), bytes, textBlock());
  Bun.spawnSync(['sync']);
  const result = Bun.spawnSync(['/usr/bin/time', '-f', '%M %e', binary, 'grep', 'NEEDLE', '--count-all', '-m', '5'], {
    env,
    stdout: 'ignore',
    stderr: 'pipe',
  });
  if (result.exitCode !== 0) throw new Error(`zipfs grep of a ${bytes}-byte file failed: ${result.stderr.toString()}`);
  const [rss, seconds] = result.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
  fs.rmSync(dir, { recursive: true, force: true });
  return { seconds: seconds!, peakRssKiB: rss! };
}
