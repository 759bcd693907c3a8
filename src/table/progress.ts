/** Progress reports are cheap to make and costly to send: pass on at most one per interval, plus the last. */
import type { Progress } from '../base/progress.ts';

export function throttleProgress(send: Progress, intervalMs = 100): Progress {
  let last = 0;
  return (done, total, message) => {
    const now = Date.now();
    if (done < total && now - last < intervalMs) return;
    last = now;
    send(done, total, message);
  };
}
