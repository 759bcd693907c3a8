/** The parts of an S3 multipart upload (src/remote/s3-parts.ts): S3's size rules, and copies where they pay. */
import { describe, expect, it } from 'bun:test';
import { MIN_PART, copiesAny, planParts } from '../../src/remote/s3-parts.ts';

const MiB = 1024 * 1024;

describe('planning the parts of an upload', () => {
  it('copies a long unchanged run and sends the rest', () => {
    expect(planParts(20 * MiB, [{ start: 0, end: 12 * MiB, from: 0 }])).toStrictEqual([
      { start: 0, end: 12 * MiB, from: 0 },
      { start: 12 * MiB, end: 20 * MiB },
    ]);
  });

  it('makes a short sent part before a copied run MIN_PART long, from the run', () => {
    const parts = planParts(16 * MiB, [{ start: 1024, end: 15 * MiB, from: 2048 }]);
    expect(parts).toStrictEqual([
      { start: 0, end: MIN_PART },
      { start: MIN_PART, end: 15 * MiB, from: 2048 + MIN_PART - 1024 },
      { start: 15 * MiB, end: 16 * MiB },
    ]);
    // Every part but the last is at least MIN_PART, and the parts cover the archive once, in order.
    expect(parts.slice(0, -1).every((p) => p.end - p.start >= MIN_PART)).toBe(true);
    expect(parts.every((p, i) => p.start === (i === 0 ? 0 : parts[i - 1]!.end))).toBe(true);
  });

  it('sends a run too short for a part of its own', () => {
    const parts = planParts(8 * MiB, [{ start: 0, end: 3 * MiB, from: 0 }]);
    expect(copiesAny(parts)).toBe(false);
    expect(parts).toStrictEqual([{ start: 0, end: 8 * MiB }]);
  });
});
