/** A one-line progress report on stderr, redrawn in place; only used when stderr is a terminal,
 * and only once an operation has run for a second: quick ones stay quiet. */
import { humanBytes } from '../format/units.ts';
import { throttleProgress } from '../progress.ts';
import type { Progress } from '../workspace/open-archive.ts';

export function progressLine(stream: NodeJS.WriteStream, label: string): { progress: Progress; finish(): void } {
  let drawn = false;
  const started = Date.now();
  const progress = throttleProgress((done, total) => {
    if (Date.now() - started < 1000) return;
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    stream.write(`\r\u001b[2K${label} ${String(percent).padStart(3)}%  ${humanBytes(done)} / ${humanBytes(total)}`);
    drawn = true;
  }, 200);
  return {
    progress,
    finish() {
      if (drawn) stream.write('\r\u001b[2K');
    },
  };
}
