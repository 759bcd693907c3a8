/**
 * A progress bar on stderr, redrawn in place. Only on a terminal, and only
 * once an operation has run for a while (a second unless ZIPFS_PROGRESS_DELAY_MS
 * says otherwise): quick ones stay quiet.
 */
import { humanBytes } from '../format/units.ts';
import { throttleProgress } from '../table/progress.ts';
import type { Progress } from '../base/progress.ts';
import type { Output } from './terminal.ts';
import { numberSetting } from '../base/env-setting.ts';

const WIDTH = 24;

/** ZIPFS_PROGRESS_DELAY_MS: how long an operation runs before its bar is drawn (0: at once). */
export const PROGRESS_DELAY_SETTING = numberSetting({
  env: 'ZIPFS_PROGRESS_DELAY_MS',
  default: 1000,
  min: 0,
  description: 'Milliseconds an operation (open, sync) runs before it draws a progress bar on a terminal',
});

export function bar(label: string, done: number, total: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(fraction * WIDTH);
  return `${label} [${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)}] ${String(Math.floor(fraction * 100)).padStart(3)}%  ${humanBytes(done)} / ${humanBytes(total)}`;
}

export function progressLine(stream: Output, label: string, delayMs = 1000): { progress: Progress; finish(): void } {
  let drawn = false;
  const started = Date.now();
  const progress = throttleProgress((done, total) => {
    if (Date.now() - started < delayMs) return;
    stream.write(`\r\u001b[2K${bar(label, done, total)}`);
    drawn = true;
  }, 200);
  return {
    progress,
    finish() {
      if (drawn) stream.write('\r\u001b[2K');
    },
  };
}
