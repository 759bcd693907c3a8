/**
 * Whole-heap collections between the phases of work on large sessions. The
 * runtime collects lazily, and the allocator keeps pages it grew into, so on
 * 100,000 entries each phase's garbage (the manifest text, the parsed central
 * directory, the read-back check) stacked up into ~200 MiB of peak memory that
 * a collection between phases returns for reuse. A full collection costs a few
 * milliseconds per 10 MiB of live heap, which small sessions should not pay.
 */
const LARGE_SESSION_ENTRIES = 20_000;

export function releasePhaseGarbage(entryCount: number): void {
  if (entryCount >= LARGE_SESSION_ENTRIES) Bun.gc(true);
}
