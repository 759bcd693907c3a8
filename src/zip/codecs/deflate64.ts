/**
 * Method 9, Deflate64 ("enhanced deflate"), read only: Windows Explorer writes it for inputs past
 * about 2 GB, and 7-Zip on request. Neither the runtime nor zlib reads it (zlib's infback9 is an
 * unbuilt contrib), and the libraries that do are unkept or large, so zipfs has its own inflater,
 * a small one (inflate64.ts). A changed entry is written as deflate.
 */
import { overflowError } from '../codec.ts';
import type { Codec } from '../codec-types.ts';
import { Inflate64, WINDOW } from './inflate64.ts';

/** A whole entry's first buffer when its header may lie: the declared size, up to this or 16 times the input. */
const TRUSTED_BYTES = 1 << 20;
/** How much output a streamed entry hands on at a time. */
const STREAM_PIECE_BYTES = 1 << 20;

/** Output so far past the declared size, a match waiting for room counted: the header lies. */
function checkSize(inflater: Inflate64, before: number, declaredSize: number): void {
  // Zeros read past a cut-off end make output too: the cut is what to report.
  inflater.checkEnd();
  if (before + inflater.pos + inflater.pendingLength > declaredSize) throw overflowError(declaredSize);
}

/**
 * A whole entry: the output grows (doubling) as it comes, up to one byte past the declared size
 * (that byte tells a lying header); an honest header's entry fills its first buffer.
 */
function decode(data: Uint8Array, declaredSize: number): Uint8Array {
  const inflater = new Inflate64([data]);
  const ceiling = declaredSize + 1;
  inflater.out = new Uint8Array(Math.min(ceiling, Math.max(TRUSTED_BYTES, data.length * 16)));
  for (;;) {
    inflater.limit = Math.min(inflater.out.length - 1, declaredSize);
    const ended = inflater.run();
    checkSize(inflater, 0, declaredSize);
    if (ended) break;
    const { out, pos, pendingLength } = inflater;
    const grown = new Uint8Array(Math.min(ceiling, Math.max(out.length * 2, pos + pendingLength + 1)));
    grown.set(out.subarray(0, pos));
    inflater.out = grown;
  }
  const { out, pos } = inflater;
  // A buffer grown far past the output is not kept for it.
  return pos < out.length / 2 ? out.slice(0, pos) : out.subarray(0, pos);
}

/**
 * A streamed entry: output in pieces of about 1 MiB, each a view of a buffer never written again;
 * only the last 64 KiB (the farthest a distance reaches) is carried into the next buffer.
 */
async function decodeStream(
  input: Iterable<Uint8Array>,
  declaredSize: number,
  onOutput: (chunk: Uint8Array) => void,
): Promise<void> {
  const inflater = new Inflate64(input);
  inflater.out = new Uint8Array(WINDOW + STREAM_PIECE_BYTES);
  /** How much output came before out[0]; out[0, handed) was handed on already (or is the window). */
  let before = 0;
  let handed = 0;
  for (;;) {
    inflater.limit = Math.min(inflater.out.length - 1, declaredSize - before);
    const ended = inflater.run();
    checkSize(inflater, before, declaredSize);
    const { out, pos } = inflater;
    if (pos > handed) onOutput(out.subarray(handed, pos));
    if (ended) return;
    const kept = Math.min(pos, WINDOW);
    const next = new Uint8Array(out.length);
    next.set(out.subarray(pos - kept, pos));
    before += pos - kept;
    inflater.out = next;
    inflater.pos = kept;
    handed = kept;
    // A turn of the event loop between pieces: a server reading a large entry still answers.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export const deflate64Codec: Codec = {
  method: 9,
  name: 'deflate64',
  versionNeeded: 21,
  decode,
  decodeStream,
};
