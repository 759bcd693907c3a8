/**
 * A sync of an S3 session that copies on the server what it does not have (DESIGN.md, "Remote
 * stores"). The new archive is written beside the mirror as usual, but a raw copy of bytes the
 * mirror never fetched is left a HOLE in it (sparse: the bytes are neither fetched nor read), and
 * every raw copy is noted as a run of the new archive that is bytes of the old object. The upload
 * (upload.ts) sends those runs as UploadPartCopy of the old object, each on
 * `x-amz-copy-source-if-match` with the ETag the session read, so what lands there is exactly the
 * bytes of the version the session's directory describes, or nothing (412: CONFLICT_DETECTED).
 * Only holes inside parts that must be sent (a run too short for a part of its own, next to new
 * bytes) are fetched, then. What stays a hole is recorded in the new mirror's `.ranges` as not
 * there, so a later read fetches it like any other entry.
 */
import fs from 'node:fs';
import type { CopyNotes } from '../zip/index.ts';
import { ensureRanges, fetchRange, type Range } from './mirror.ts';
import type { Part } from './s3-parts.ts';

export class ServerCopies implements CopyNotes {
  /** Every raw copy: `[start, end)` of the new archive is `from` on in the old object. */
  readonly runs: Part[] = [];
  /** The copies' parts not written (absent from the mirror), as runs; fill() takes out what it fetches. */
  holes: Part[] = [];

  constructor(
    /** The mirror's present ranges (its `.ranges`), sorted and disjoint. */
    private readonly present: readonly Range[],
  ) {}

  copying(start: number, end: number, at: number): Range[] {
    const last = this.runs.at(-1);
    if (last && last.end === at && last.from! + (last.end - last.start) === start) last.end = at + (end - start);
    else this.runs.push({ start: at, end: at + (end - start), from: start });
    const here: Range[] = [];
    let from = start;
    for (let k = this.firstEndingAfter(start); k < this.present.length; k++) {
      const [a, b] = this.present[k]!;
      if (a >= end) break;
      if (a > from) this.hole(from, a, at - start);
      here.push([Math.max(a, from), Math.min(b, end)]);
      from = Math.min(b, end);
    }
    if (from < end) this.hole(from, end, at - start);
    return here;
  }

  /** The first present range that ends past `at`, by halving: asked for every entry copied (a million, maybe). */
  private firstEndingAfter(at: number): number {
    let [low, high] = [0, this.present.length];
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.present[middle]![1] <= at) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  private hole(from: number, to: number, shift: number): void {
    this.holes.push({ start: from + shift, end: to + shift, from });
  }

  /** Whether any of `[start, end)` of the old object is absent here (its copy is made on the server). */
  absent(start: number, end: number): boolean {
    let at = start;
    for (let k = this.firstEndingAfter(start); k < this.present.length && at < end; k++) {
      const [a, b] = this.present[k]!;
      if (a > at) return true;
      at = b;
    }
    return at < end;
  }

  /**
   * Fetches from `url` (if it is still `etag`) into `file` the holes inside `parts`' sent ranges (all of them: the
   * whole body is sent): their bytes are sent, so they must be here. Answers how many bytes came.
   */
  async fill(file: string, parts: readonly Part[], options: { url: string; etag: string; signal?: AbortSignal }) {
    const sent = parts.filter((part) => part.from === undefined);
    const fd = fs.openSync(file, 'r+');
    let bytes = 0;
    try {
      const left: Part[] = [];
      for (const hole of this.holes) {
        let at = hole.start;
        for (const part of sent) {
          const [start, end] = [Math.max(at, part.start), Math.min(hole.end, part.end)];
          if (start >= end) continue;
          if (start > at) left.push({ start: at, end: start, from: hole.from! + (at - hole.start) });
          const range: Range = [hole.from! + (start - hole.start), hole.from! + (end - hole.start)];
          bytes += await fetchRange({ ...options, range, fd, at: start });
          at = end;
        }
        if (at < hole.end) left.push({ start: at, end: hole.end, from: hole.from! + (at - hole.start) });
      }
      this.holes = left;
    } finally {
      fs.closeSync(fd);
    }
    return bytes;
  }

  /** What of an archive of `size` bytes is present once the holes left are not: the new mirror's ranges. */
  presentIn(size: number): Range[] {
    const ranges: Range[] = [];
    let at = 0;
    for (const hole of [...this.holes].sort((a, b) => a.start - b.start)) {
      if (hole.start > at) ranges.push([at, hole.start]);
      at = Math.max(at, hole.end);
    }
    if (at < size) ranges.push([at, size]);
    return ranges;
  }
}

/**
 * The local headers of the old object's entries at `offsets` (a sync rewrites those entries keeping their local extra
 * fields), fetched into the mirror if absent: the fixed part first, then each one's name and extra field.
 */
export async function fetchLocalHeaders(
  mirror: string,
  offsets: readonly number[],
  options: { etag: string; signal?: AbortSignal },
): Promise<void> {
  if (offsets.length === 0) return;
  await ensureRanges(
    mirror,
    offsets.map((at): Range => [at, at + 30]),
    options,
  );
  const fd = fs.openSync(mirror, 'r');
  const ranges: Range[] = [];
  try {
    const fixed = Buffer.alloc(30);
    for (const at of offsets) {
      fs.readSync(fd, fixed, 0, 30, at);
      ranges.push([at + 30, at + 30 + fixed.readUInt16LE(26) + fixed.readUInt16LE(28)]);
    }
  } finally {
    fs.closeSync(fd);
  }
  await ensureRanges(mirror, ranges, options);
}
