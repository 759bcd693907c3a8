/**
 * The binary starts with JavaScriptCore's tier-up thresholds scaled tenfold (scripts/build.ts:
 * --compile-jit-policy): a CLI call runs most of its code once, and compiling that code on the
 * JIT's threads cost more than interpreting it (an open of a 2 MiB Office document: 2-4 ms of its
 * 28 ms of CPU). Work that loops over many items wants the normal thresholds back, and gets them
 * here: an archive or a session of LARGE_WORK_ITEMS entries or more, the MCP server, a worker.
 */
const LARGE_WORK_ITEMS = 1000;

/** JavaScriptCore's normal tier-up thresholds from now on, in this thread. */
export function fullJit(): void {
  Bun.unsafe.setJITPolicy(1);
}

/** The normal thresholds for work over `items` entries, when they are many. */
export function jitFor(items: number): void {
  if (items >= LARGE_WORK_ITEMS) fullJit();
}
