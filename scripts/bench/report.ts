/** Markdown tables: median seconds, min..max, MB/s, peak RSS, and the paired median ratio against the reference. */
import type { Measured } from './rounds.ts';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The value below which `p` percent of the samples fall (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function report(title: string, results: Measured[], bytes: number): string {
  const reference = results.find((r) => r.contender.reference) ?? results[0]!;
  const rows = results.map((r) => {
    const ratios = r.seconds.map((s, i) => s / reference.seconds[i]!);
    return (
      `| ${r.contender.name} | ${median(r.seconds).toFixed(3)} | ` +
      `${Math.min(...r.seconds).toFixed(3)}..${Math.max(...r.seconds).toFixed(3)} | ` +
      `${(bytes / 2 ** 20 / median(r.seconds)).toFixed(0)} | ${(median(r.peakRssKiB) / 1024).toFixed(0)} | ` +
      `${median(ratios).toFixed(2)}x |`
    );
  });
  return [
    `### ${title}`,
    '',
    '| tool | median s | min..max s | MB/s | peak RSS MiB | ratio |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
  ].join('\n');
}
