/**
 * Blocks this thread for `ms` milliseconds: for the short waits of synchronous code (a full pipe, a clock tick), where
 * an await would not fit.
 */
const CELL = new Int32Array(new SharedArrayBuffer(4));

export function sleepSync(ms: number): void {
  Atomics.wait(CELL, 0, 0, ms);
}
