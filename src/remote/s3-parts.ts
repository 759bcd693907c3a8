/**
 * Which bytes of a new archive S3 can copy from the old one on the server (UploadPartCopy), and
 * which must be sent: the entries sync copied unchanged keep their bytes (local header, data,
 * descriptor) and only move, so each such entry of the new archive is found in the old one by name
 * and compared byte for byte (a run is copied only where the bytes are the same), and neighbours
 * that stay neighbours make one run. Parts follow S3's rules: at least 5 MiB but the last, at most
 * 5 GiB, at most 10,000; a copy run too short for a part of its own is sent instead.
 */
import { FileSource, readPackedDirectory } from '../zip/index.ts';

export const MIN_PART = 5 * 1024 * 1024;
export const MAX_PART = 5 * 1024 * 1024 * 1024;
const MAX_PARTS = 10_000;

/** A part: bytes `[start, end)` of the new archive, sent, or copied from `from` in the old object. */
export interface Part {
  start: number;
  end: number;
  from?: number;
}

/** Runs of the new archive found byte for byte in the old: `[start, end)` in the new, at `from` in the old. */
export function copyRuns(newFile: string, oldFile: string): Part[] {
  const fresh = new FileSource(newFile);
  const old = new FileSource(oldFile);
  try {
    const after = readPackedDirectory(fresh);
    const before = readPackedDirectory(old);
    const byName = new Map<string, number>();
    for (let i = 0; i < before.count; i++) byName.set(before.entry(i).name, i);
    const runs: Part[] = [];
    const [afterEnds, beforeEnds] = [after.rawEnds(), before.rawEnds()];
    for (let j = 0; j < after.count; j++) {
      const i = byName.get(after.entry(j).name);
      if (i === undefined) continue;
      const run = { start: after.localHeaderOffset(j), end: afterEnds[j]!, from: before.localHeaderOffset(i) };
      if (beforeEnds[i]! - run.from !== run.end - run.start || !sameBytes(fresh, old, run)) continue;
      runs.push(run);
    }
    runs.sort((a, b) => a.start - b.start);
    const joined: Part[] = [];
    for (const run of runs) {
      const last = joined.at(-1);
      if (last && last.end === run.start && last.from! + (last.end - last.start) === run.from) last.end = run.end;
      else joined.push({ ...run });
    }
    return joined;
  } finally {
    fresh.close();
    old.close();
  }
}

function sameBytes(fresh: FileSource, old: FileSource, run: Required<Part>): boolean {
  const step = 1 << 20;
  for (let at = 0; at < run.end - run.start; at += step) {
    const length = Math.min(step, run.end - run.start - at);
    const a = fresh.read(run.start + at, length);
    const b = old.read(run.from + at, length);
    if (a.length !== length || Buffer.compare(a, b) !== 0) return false;
  }
  return true;
}

/**
 * The parts of an archive of `size` bytes with `runs` copyable: runs of at least MIN_PART are copied (the sent part
 * before one is first made MIN_PART long from the run's start, when it is shorter); everything else is sent.
 */
export function planParts(size: number, runs: readonly Part[]): Part[] {
  const parts: Part[] = [];
  let pending: Part | undefined; // bytes to send, not yet a part
  let at = 0;
  const send = (end: number) => {
    if (end <= at) return;
    pending = pending ? { ...pending, end } : { start: at, end };
    at = end;
  };
  for (const run of runs) {
    if (run.start < at) continue;
    send(run.start);
    let { start, from } = run as Required<Part>;
    if (pending && pending.end - pending.start < MIN_PART) {
      const need = Math.min(MIN_PART - (pending.end - pending.start), run.end - start);
      send(start + need);
      [start, from] = [start + need, from + need];
    }
    if (run.end - start < MIN_PART) {
      send(run.end);
      continue;
    }
    if (pending) parts.push(...split(pending));
    pending = undefined;
    for (let s = start; s < run.end; s += MAX_PART) {
      const end = Math.min(run.end, s + MAX_PART);
      // The last piece of a long run may come out short: it is given to the sent bytes after it.
      if (end - s < MIN_PART && end === run.end && s > start) {
        send(end);
        break;
      }
      parts.push({ start: s, end, from: from + (s - start) });
      at = end;
    }
  }
  send(size);
  if (pending) parts.push(...split(pending));
  return parts.length > MAX_PARTS ? [{ start: 0, end: size }] : parts;
}

/** A sent range in parts of at most MAX_PART. */
function split(part: Part): Part[] {
  const out: Part[] = [];
  for (let s = part.start; s < part.end; s += MAX_PART) out.push({ start: s, end: Math.min(part.end, s + MAX_PART) });
  return out;
}

/** Whether a multipart upload is worth it: some part is copied on the server. */
export function copiesAny(parts: readonly Part[]): boolean {
  return parts.some((part) => part.from !== undefined);
}
