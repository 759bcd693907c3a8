/**
 * A remote archive's MIRROR: a local sparse file of the object's size, holding the byte ranges
 * fetched so far, and beside it a record of which ranges those are and of the ETag they belong to
 * (`<mirror>.ranges`, keyed by the mirror's inode: a mirror replaced by a newer version has none
 * until it writes its own). The synchronous zip code reads the mirror as it reads a local zip;
 * what it will read is fetched first (ensureRanges), each request conditional on the ETag, so a
 * remote that changed in between is a conflict, never bytes of two versions.
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { writeFully } from '../base/fd-io.ts';
import { call, failure, remoteChanged, transferred } from './http-client.ts';
import { shown } from './remote-url.ts';

export type Range = [start: number, end: number];

export interface MirrorState {
  ino: number;
  size: number;
  etag: string;
  url: string;
  /** Sorted, disjoint, half-open. */
  ranges: Range[];
}

/** Ranges closer than this are fetched as one request: a gap costs less than a round trip. */
export const COALESCE_GAP = 64 << 10;

export function statePath(mirror: string): string {
  return `${mirror}.ranges`;
}

/** The mirror's record, when it is the mirror's (same inode); undefined otherwise. */
export function readState(mirror: string): MirrorState | undefined {
  try {
    const state = JSON.parse(fs.readFileSync(statePath(mirror), 'utf8')) as MirrorState;
    return state.ino === fs.statSync(mirror).ino ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the record whole (a temporary renamed into place): a reader sees the old one or the new. */
export function writeState(mirror: string, state: MirrorState): void {
  const temporary = `${statePath(mirror)}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(state));
  fs.renameSync(temporary, statePath(mirror));
}

/** `ranges` with `[start, end)` added, merged where they touch. */
export function withRange(ranges: readonly Range[], [start, end]: Range): Range[] {
  const out: Range[] = [];
  let [s, e] = [start, end];
  for (const [a, b] of ranges) {
    if (b < s || a > e) out.push([a, b]);
    else [s, e] = [Math.min(a, s), Math.max(b, e)];
  }
  out.push([s, e]);
  return out.sort((x, y) => x[0] - y[0]);
}

/** The parts of `wanted` not in `have`, as few requests: gaps under COALESCE_GAP apart are joined. */
export function missingRanges(have: readonly Range[], wanted: readonly Range[], size: number): Range[] {
  const gaps: Range[] = [];
  const sorted = [...wanted].map(([a, b]): Range => [Math.max(0, a), Math.min(size, b)]).filter(([a, b]) => a < b);
  sorted.sort((x, y) => x[0] - y[0]);
  for (const [start, end] of sorted) {
    let at = start;
    for (const [a, b] of have) {
      if (b <= at) continue;
      if (a >= end) break;
      if (a > at) gaps.push([at, a]);
      at = Math.max(at, b);
    }
    if (at < end) gaps.push([at, end]);
  }
  const joined: Range[] = [];
  for (const gap of gaps.sort((x, y) => x[0] - y[0])) {
    const last = joined.at(-1);
    if (last && gap[0] - last[1] <= COALESCE_GAP) last[1] = Math.max(last[1], gap[1]);
    else joined.push([...gap]);
  }
  return joined;
}

/**
 * Makes `wanted` present in the mirror: what is missing is fetched (coalesced), each range on the condition that the
 * object is still the mirror's version. Answers how many bytes came.
 */
export async function ensureRanges(
  mirror: string,
  wanted: readonly Range[],
  options: { etag?: string; signal?: AbortSignal } = {},
): Promise<number> {
  const { signal } = options;
  const state = readState(mirror);
  // A mirror of another version than the session's base (a sync of another session took it): its offsets are not ours.
  if (state && options.etag !== undefined && state.etag !== options.etag) throw remoteChanged(state.url, options.etag);
  if (!state)
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The local mirror of this remote archive (${mirror}) was replaced by another session's newer copy, or its ` +
        'record is gone; sync with merge to take the new version, or close the session and open the URL again.',
    );
  const gaps = missingRanges(state.ranges, wanted, state.size);
  if (gaps.length === 0) return 0;
  const fd = fs.openSync(mirror, 'r+');
  let bytes = 0;
  try {
    for (const gap of gaps) {
      bytes += await fetchRange({ url: state.url, etag: state.etag, range: gap, fd, signal });
      // Read again before adding: another process may have recorded ranges of its own meanwhile.
      const now = readState(mirror) ?? state;
      writeState(mirror, { ...now, ranges: withRange(now.ranges, gap) });
    }
  } finally {
    fs.closeSync(fd);
  }
  return bytes;
}

/** `[start, end)` of the object at `url`, if it is still `etag`, written into `fd` at the same offsets (or at `at`). */
export async function fetchRange(options: {
  url: string;
  etag: string;
  range: Range;
  fd: number;
  at?: number;
  signal?: AbortSignal;
}): Promise<number> {
  const { url, etag, fd } = options;
  const [start, end] = options.range;
  const response = await call({
    method: 'GET',
    url,
    headers: { Range: `bytes=${start}-${end - 1}`, 'If-Match': etag },
    signal: options.signal,
  });
  if (response.status === 412) {
    void response.body?.cancel();
    throw remoteChanged(url, etag);
  }
  if (response.status === 200) {
    void response.body?.cancel();
    throw ignoresRange(url);
  }
  if (response.status !== 206) throw failure(response, url, 'a range read');
  const answered = parseContentRange(response.headers.get('content-range'));
  const tag = response.headers.get('etag');
  if (!answered || answered.start !== start || answered.end !== end || (tag !== null && tag !== etag)) {
    void response.body?.cancel();
    throw remoteChanged(url, etag);
  }
  return streamInto(response, fd, options.at ?? start, end - start);
}

/** The body of `response` written into `fd` from `at`; exactly `length` bytes, or the read failed. */
export async function streamInto(response: Response, fd: number, at: number, length: number): Promise<number> {
  let written = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (written + chunk.length > length) break;
    writeFully(fd, chunk, at + written);
    written += chunk.length;
    transferred.received += chunk.length;
  }
  if (written !== length)
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The server sent ${written} bytes where ${length} were asked; the connection may have broken. Try again.`,
    );
  return written;
}

/** `bytes START-END/TOTAL` as a half-open range and the total. */
export function parseContentRange(value: string | null): { start: number; end: number; total: number } | undefined {
  const match = value?.match(/^bytes (\d+)-(\d+)\/(\d+)$/);
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]) + 1, total: Number(match[3]) };
}

/** A server that answers a range read with the whole object. */
export function ignoresRange(url: string): ZipfsError {
  return new ZipfsError(
    'ZIP_INVALID',
    `${shown(url)} ignores range requests (it answered the whole object), so zipfs cannot read it lazily; open it ` +
      'with download to fetch the whole archive once, or download it yourself and open the file.',
  );
}
