/**
 * A deterministic fuzz run in every test run: mutants of the corpus and of
 * built archives (field values 0/0xFFFF/0xFFFFFFFF, re-pointed offsets, byte
 * flips, insertions, truncations) through the compiled binary. No exit 70, no
 * hang, nothing outside the data directory; what opens must sync, and the
 * synced zip must pass unzip -t, Python's zipfile and a second zipfs open.
 * `bun run fuzz -- --count N --seed S` runs the long version.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFuzz } from '../../scripts/fuzz/run.ts';
import { loadSeeds } from '../../scripts/fuzz/seeds.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { CORPUS_DIR } from '../helpers/corpus.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-fuzz-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('fuzzed archives', () => {
  it('keep every promise over 400 mutants (seed 20261123)', async () => {
    const report = await runFuzz({ binary: BINARY, seeds: loadSeeds(CORPUS_DIR), count: 400, seed: 20261123, scratch });
    expect(report.failures).toStrictEqual([]);
    expect(report.mutants).toBe(400);
    // The run means something only if mutants both open (and go through sync) and get refused.
    expect(report.synced).toBeGreaterThan(20);
    expect(Object.keys(report.refused).sort()).toStrictEqual(['PATH_TRAVERSAL', 'ZIP_BOMB_DETECTED', 'ZIP_INVALID']);
  }, 120_000);

  it('keep every promise opened lazily, every entry grepped from the zip, over 200 mutants (seed 20261124)', async () => {
    const report = await runFuzz({ binary: BINARY, seeds: loadSeeds(CORPUS_DIR), count: 200, seed: 20261124, scratch, lazy: true });
    expect(report.failures).toStrictEqual([]);
    expect(report.synced).toBeGreaterThan(20);
    expect(report.refused.PATH_TRAVERSAL ?? 0).toBeGreaterThan(0);
    expect(report.refusedAtSync ?? 0).toBeGreaterThan(0); // damage met at sync, the zip left as it was
  }, 120_000);
});
