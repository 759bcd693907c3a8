/**
 * A lazy session's own files checked against each other before they are
 * trusted (README, "Damaged sessions"): `central.bin` against what the
 * session record says of it (its length and CRC-32, recorded at open and at
 * each sync, and its entry count), and each manifest line against the
 * directory (an index in range and listed once, the path and type of the
 * directory's entry at that index). A cut, garbage or swapped central.bin, a
 * lowered entry count or a line pointing elsewhere would otherwise give a
 * partial listing, a sync that drops or doubles entries, or a loop to an index
 * of a billion: each is SESSION_DAMAGED instead. CRC-32, not SHA-256: it
 * guards against damage, not an adversary who can write the session anyway,
 * and costs 7 ms at a million entries (67 MB) where SHA-256 costs 60 ms.
 */
import type { LazyFacts } from './manifest.ts';

/** What a session record keeps of its central.bin, to know it again. */
export function centralFileFacts(bytes: Uint8Array): { central_bytes: number; central_crc32: number } {
  return { central_bytes: bytes.length, central_crc32: Bun.hash.crc32(bytes) };
}

/**
 * What is wrong with a central.bin's bytes for this record, or undefined (older records keep no length or CRC: only the
 * count is checked).
 */
export function centralFileProblem(bytes: Uint8Array, facts: LazyFacts): string | undefined {
  if (facts.central_bytes !== undefined && bytes.length !== facts.central_bytes) {
    return (
      `its central.bin is ${bytes.length} bytes, where the session recorded ${facts.central_bytes} (cut off ` +
      `or replaced)`
    );
  }
  if (facts.central_crc32 !== undefined && Bun.hash.crc32(bytes) !== facts.central_crc32) {
    return 'its central.bin is not the directory the session recorded (its CRC-32 differs: changed or replaced)';
  }
  return undefined;
}

/** What is wrong with the directory parsed from central.bin, against the record's entry count. */
export function centralCountProblem(count: number, used: number, length: number, facts: LazyFacts): string | undefined {
  if (used !== length)
    return `its central.bin holds ${length - used} bytes after its last readable record (garbage or a damaged record)`;
  if (count !== facts.entries)
    return `its central.bin holds ${count} entries, where the manifest says ${facts.entries}`;
  return undefined;
}
