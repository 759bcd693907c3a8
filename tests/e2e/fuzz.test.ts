/**
 * A deterministic fuzz run in every test run: mutants of the corpus and of
 * built archives (field values 0/0xFFFF/0xFFFFFFFF, re-pointed offsets, byte
 * flips, insertions, truncations) through the compiled binary. No exit 70, no
 * hang, nothing outside the data directory; what opens must sync and reopen.
 * The synced zips' verdicts by unzip -t and Python's zipfile are tests of their
 * own, skipped by name where the reader is not installed (a machine without
 * unzip must pass, as the README says). `bun run fuzz -- --count N --seed S`
 * runs the long version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runFuzz, type FuzzReport } from '../../scripts/fuzz/run.ts';
import { loadSeeds } from '../../scripts/fuzz/seeds.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { CORPUS_DIR } from '../helpers/corpus.ts';
import { needs } from '../helpers/tools.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-fuzz-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const unzip = needs('unzip');
const python = needs('python3');

/** One run per mode, shared by its promise tests and its reference readers' tests. */
function fuzzed(
  title: string,
  options: { count: number; seed: number; lazy: boolean },
  promises: (report: FuzzReport) => void,
): void {
  describe(title, () => {
    let report: FuzzReport;
    beforeAll(async () => {
      report = await runFuzz({
        binary: BINARY,
        seeds: loadSeeds(CORPUS_DIR),
        scratch: path.join(scratch, options.lazy ? 'lazy' : 'eager'),
        ...options,
      });
    }, 120_000);
    it('keep every promise: no exit 70, no hang, nothing outside, what opens syncs and reopens', () =>
      promises(report));
    it.skipIf(unzip.skip)(`synced zips pass unzip -t${unzip.why}`, () =>
      expect(report.reference.unzip).toStrictEqual([]),
    );
    it.skipIf(python.skip)(`synced zips are read whole by Python's zipfile${python.why}`, () =>
      expect(report.reference.python).toStrictEqual([]),
    );
  });
}

describe('fuzzed archives', () => {
  fuzzed('over 400 mutants (seed 20261123)', { count: 400, seed: 20261123, lazy: false }, (report) => {
    expect(report.failures).toStrictEqual([]);
    expect(report.mutants).toBe(400);
    // The run means something only if mutants both open (and go through sync) and get refused.
    expect(report.synced).toBeGreaterThan(20);
    expect(Object.keys(report.refused).sort()).toStrictEqual(['PATH_TRAVERSAL', 'ZIP_BOMB_DETECTED', 'ZIP_INVALID']);
  });

  fuzzed(
    'opened lazily, every entry grepped from the zip, over 200 mutants (seed 20261124)',
    { count: 200, seed: 20261124, lazy: true },
    (report) => {
      expect(report.failures).toStrictEqual([]);
      expect(report.synced).toBeGreaterThan(20);
      expect(report.refused.PATH_TRAVERSAL ?? 0).toBeGreaterThan(0);
      expect(report.refusedAtSync ?? 0).toBeGreaterThan(0); // damage met at sync, the zip left as it was
    },
  );
});
