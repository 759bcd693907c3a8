/** Runs contenders interleaved (A B C, B C A, ...) so drift in the machine hits all alike. */

export interface Contender {
  name: string;
  /** The row the ratios are taken against. */
  reference?: boolean;
  /** Untimed work before each timed run (make the change that the run writes back). */
  prepare?: () => void;
  command: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
}

export interface Measured {
  contender: Contender;
  seconds: number[];
  peakRssKiB: number[];
}

/** One timed run under /usr/bin/time, for wall time and peak resident memory. Dirty pages of
 * earlier runs are flushed first (untimed), so no run pays for another's write-back. */
function timed(contender: Contender): { seconds: number; rss: number } {
  contender.prepare?.();
  Bun.spawnSync(['sync']);
  const started = performance.now();
  const result = Bun.spawnSync(['/usr/bin/time', '-f', '%M', ...contender.command], {
    cwd: contender.cwd,
    env: contender.env ?? process.env,
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) throw new Error(`${contender.name} failed: ${result.stderr.toString()}`);
  const lines = result.stderr.toString().trim().split('\n');
  return { seconds, rss: Number(lines.at(-1)) };
}

/** One timed run and no warm-up: for a contender that takes minutes (unzip of a million entries). */
export function runOnce(contender: Contender): Measured {
  const run = timed(contender);
  return { contender, seconds: [run.seconds], peakRssKiB: [run.rss] };
}

export function runRounds(contenders: Contender[], rounds: number): Measured[] {
  const results = contenders.map((contender) => ({ contender, seconds: [] as number[], peakRssKiB: [] as number[] }));
  for (const contender of contenders) timed(contender); // warm-up: caches, page cache, first-run costs
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < results.length; i++) {
      const slot = results[(i + round) % results.length]!;
      const run = timed(slot.contender);
      slot.seconds.push(run.seconds);
      slot.peakRssKiB.push(run.rss);
    }
  }
  return results;
}
