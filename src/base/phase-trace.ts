/**
 * ZIPFS_TRACE_PHASES=1: each phase of a command and its wall time, on stderr when the process exits,
 * as GIT_TRACE_PERFORMANCE does for git. For finding where a command's time goes; off, it costs a
 * branch per mark.
 */
const on = process.env.ZIPFS_TRACE_PHASES === '1';
const marks: [string, number][] = [];
let last = on ? performance.now() : 0;

export function phase(name: string): void {
  if (!on) return;
  const now = performance.now();
  marks.push([name, now - last]);
  last = now;
}

if (on) {
  // The runtime's start and the modules evaluated before this one, then each mark, then what ran after the last.
  marks.push(['start-up: runtime and modules', last]);
  process.on('exit', () => {
    marks.push(['after the last mark, to exit', performance.now() - last]);
    const lines = marks.map(([name, ms]) => `${ms.toFixed(2).padStart(8)} ms  ${name}`);
    process.stderr.write(`zipfs phases (since start-up ${performance.now().toFixed(1)} ms):\n${lines.join('\n')}\n`);
  });
}
