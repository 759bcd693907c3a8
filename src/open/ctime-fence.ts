/**
 * A ctime that separates the files open wrote from any later change, so that
 * `status` can prove a file untouched by one stat instead of reading it.
 *
 * File times come from the kernel's coarse clock, which advances in ticks
 * (1-10 ms). A marker file is touched after the last extracted file was
 * written, and touched again until its ctime moves to a later tick: that
 * ctime is the fence. Every extracted file has a ctime at or before the first
 * tick, so strictly before the fence; every later write, utimes, chmod or
 * rename stamps a ctime at or after it, and nothing can set a ctime back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sleepSync } from '../base/sleep.ts';

/** File systems with coarse times (whole seconds) would make open wait a second: give up sooner. */
const MAX_WAIT_MS = 50;
/**
 * How often the clock is asked whether it moved: Linux's coarse clock ticks every 1-10 ms (4 at HZ=250), and a poll
 * every whole millisecond waited half a millisecond past the tick on average, a tenth of a small open's wait.
 */
const POLL_MS = 0.2;

/**
 * Returns the fence for `dir`'s file system. When the clock does not move
 * within the wait, it returns the first tick itself: files stamped in that
 * tick are then not proven untouched and get their content checked instead.
 */
export function ctimeFence(dir: string): number {
  const marker = path.join(dir, '.zipfs-ctime-fence');
  const fd = fs.openSync(marker, 'w');
  try {
    const first = fs.fstatSync(fd).ctimeMs;
    const deadline = Date.now() + MAX_WAIT_MS;
    for (let at = first; ; ) {
      if (at > first) return at;
      if (Date.now() > deadline) return first;
      sleepSync(POLL_MS);
      fs.futimesSync(fd, 0, 0); // a metadata change: the kernel stamps ctime with its clock's current tick
      at = fs.fstatSync(fd).ctimeMs;
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(marker, { force: true });
  }
}
