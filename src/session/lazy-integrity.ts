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
import { sessionDamaged, type EntryRecord } from './manifest.ts';
import type { LazyEntries, LazyFacts } from './lazy-entries.ts';

/** What a session record keeps of its central.bin, to know it again. */
export function centralFileFacts(bytes: Uint8Array): { central_bytes: number; central_crc32: number } {
  return { central_bytes: bytes.length, central_crc32: Bun.hash.crc32(bytes) };
}

/** What is wrong with a central.bin's bytes for this record, or undefined (older records keep no length or CRC: only the count is checked). */
export function centralFileProblem(bytes: Uint8Array, facts: LazyFacts): string | undefined {
  if (facts.central_bytes !== undefined && bytes.length !== facts.central_bytes) {
    return `its central.bin is ${bytes.length} bytes, where the session recorded ${facts.central_bytes} (cut off or replaced)`;
  }
  if (facts.central_crc32 !== undefined && Bun.hash.crc32(bytes) !== facts.central_crc32) {
    return 'its central.bin is not the directory the session recorded (its CRC-32 differs: changed or replaced)';
  }
  return undefined;
}

/** What is wrong with the directory parsed from central.bin, against the record's entry count. */
export function centralCountProblem(count: number, used: number, length: number, facts: LazyFacts): string | undefined {
  if (used !== length) return `its central.bin holds ${length - used} bytes after its last readable record (garbage or a damaged record)`;
  if (count !== facts.entries) return `its central.bin holds ${count} entries, where the manifest says ${facts.entries}`;
  return undefined;
}

/**
 * Every line of a lazy session's manifest names an entry of the directory, once: cheap checks on
 * the lines alone (readManifest), before anything loops over or indexes by them.
 */
export function assertTrackedIndexes(dir: string, facts: LazyFacts, sorted: EntryRecord[]): void {
  for (let i = 0; i < sorted.length; i++) {
    const { index } = sorted[i]!;
    if (!Number.isInteger(index) || index < 0 || index >= facts.entries) {
      throw sessionDamaged(dir, `its manifest.jsonl lists entry index ${index}, but the session's directory has ${facts.entries} entries`);
    }
    if (i > 0 && sorted[i - 1]!.index === index) throw sessionDamaged(dir, `its manifest.jsonl lists entry index ${index} twice`);
  }
}

/** Every line of a lazy session's manifest has the path and type of the directory's entry at its index. */
export function assertTrackedMatch(dir: string, entries: readonly EntryRecord[], lazy: LazyEntries): void {
  for (let i = 0; i < entries.length; i++) {
    const { index, path, type } = entries[i]!;
    if (index >= lazy.count) throw sessionDamaged(dir, `its manifest.jsonl lists entry index ${index}, but its central.bin has ${lazy.count} entries`);
    if (lazy.paths[index] !== path || lazy.type(index) !== type) {
      throw sessionDamaged(dir, `line of entry ${index} in its manifest.jsonl says ${JSON.stringify(path)} (${type}), but the session's directory has ${JSON.stringify(lazy.paths[index])} (${lazy.type(index)}) there`);
    }
  }
}
