/**
 * Waiting for a condition instead of sleeping and hoping: a test that slept
 * 300 ms before a signal passed whether or not the thing it meant to catch
 * had happened yet. waitFor polls until the condition holds; its timeout is
 * only a failure bound, and reaching it fails the test, saying what it waited for.
 */
import fs from 'node:fs';

export interface WaitOptions {
  /** What the test waits for, for the failure message ("the writer blocked in read(2)"). */
  what: string;
  /** The failure bound: reaching it throws. 10 s unless told. */
  timeoutMs?: number;
  /** Between polls; 5 ms unless told. */
  intervalMs?: number;
}

/** Polls `condition` until it returns a truthy value, and returns that value; throws after `timeoutMs`. */
export async function waitFor<T>(condition: () => T | undefined | null | false, options: WaitOptions): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = condition();
    if (value) return value;
    if (Date.now() >= deadline)
      throw new Error(`timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${options.what}`);
    await Bun.sleep(options.intervalMs ?? 5);
  }
}

/** Where a process sleeps in the kernel (/proc/PID/wchan), '' when it runs or is gone. */
export function wchan(pid: number): string {
  try {
    const value = fs.readFileSync(`/proc/${pid}/wchan`, 'utf8');
    return value === '0' ? '' : value;
  } catch {
    return '';
  }
}

/** Whether /proc/PID/wchan can be read here (Linux): the tests that watch a process block need it. */
export const CAN_SEE_WCHAN = fs.existsSync('/proc/self/wchan');

/** A process blocked in read(2) on a pipe or socket (anon_pipe_read, pipe_read, unix_stream_read_generic). */
export function blockedReading(pid: number): boolean {
  return /read/.test(wchan(pid));
}
