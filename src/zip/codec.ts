/**
 * Deflate's implementation and the checksum: which library compresses,
 * decompresses and checksums is decided here. Measured (see DESIGN.md,
 * Performance), the runtime's built-in zlib inflates 3-7x faster than fflate,
 * so the hot paths use it. Which method an entry uses is decided elsewhere, in
 * one place: the codec registry (codec-registry.ts, codecs/deflate.ts).
 */
import type { default as Zlib } from 'node:zlib';
import { NATIVE_MAX_INPUT_BYTES, nativeInflate, type NativeInflate } from './native-inflate.ts';

// node:zlib brings node:stream and node:util with it, about 10 ms of start-up:
// loaded on first use, so a call that inflates nothing (status, sync of a small
// edit, ls) does not pay for it.
let zlibModule: typeof Zlib | undefined;
export function zlib(): typeof Zlib {
  return (zlibModule ??= process.getBuiltinModule('node:zlib'));
}

/** Whether node:zlib is loaded in this thread (the tests ask which inflate ran). */
export function zlibLoaded(): boolean {
  return zlibModule !== undefined;
}

/** CRC-32 (IEEE), chained through `previous`; Bun's native one needs no module load. */
export function crc32(data: Uint8Array, previous = 0): number {
  return Bun.hash.crc32(data, previous);
}

export class InflateError extends Error {
  constructor(
    message: string,
    /** True when the stream produced more than the declared size: the header lied. */
    readonly overflow: boolean,
  ) {
    super(message);
  }
}

/**
 * The fault of a stream whose output passes its declared size: the header lied (ZIP_BOMB_DETECTED). `verb` says what
 * the method does: deflate "inflates", zstd "decompresses", bzip2 "decodes".
 */
export function overflowError(declaredSize: number, verb = 'inflates'): InflateError {
  return new InflateError(`${verb} to more than the declared ${declaredSize} bytes`, true);
}

const ONE_PIECE_MAX_BYTES = 16 << 20;

/** The output bound of a node:zlib one-shot decode (zlib.inflateRawSync, zlib.zstdDecompressSync, ...). */
export interface OutputBound {
  maxOutputLength: number;
  chunkSize: number;
}

/**
 * A node:zlib one-shot decode (deflate's, zstd's) held to `declaredSize`: its output in one piece of the declared
 * size (capped; in 16 KiB pieces, joining them cost half as much again as inflating: an Office document's parts,
 * 2.6 against 1.6 ms per MB), stopped one byte past it, which is the overflow error. `damaged` words any other fault.
 */
export function decodeBounded(
  declaredSize: number,
  decode: (bound: OutputBound) => Uint8Array,
  damaged: (error: unknown) => InflateError,
  verb = 'inflates',
): Uint8Array {
  let out: Uint8Array;
  try {
    out = decode({
      maxOutputLength: declaredSize + 1,
      chunkSize: Math.min(Math.max(64, declaredSize + 1), ONE_PIECE_MAX_BYTES),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) throw overflowError(declaredSize, verb);
    throw damaged(error);
  }
  if (out.length > declaredSize) throw overflowError(declaredSize, verb);
  return out;
}

const SMALL_INPUT_BYTES = 16 << 10;

/** Inflates a raw deflate stream whose declared output is `expectedSize` bytes.
 * Output is capped one byte past the declared size (for inputs under 16 KiB it
 * is checked once inflated, at most 16.5 MB), so a lying header costs bounded
 * memory, and the overflow is reported instead of trusted. Larger inputs go
 * through the system's zlib while this thread has not loaded node:zlib and has
 * inflated little, or libdeflate where it is installed (native-inflate.ts);
 * else through node:zlib. */
export function inflateRaw(data: Uint8Array, expectedSize: number): Uint8Array {
  const corrupt = (error: unknown) => new InflateError(`corrupt deflate data (${(error as Error).message})`, false);
  if (data.length <= SMALL_INPUT_BYTES) {
    let out: Uint8Array;
    // Bun's own inflate builds no stream object: 0.3 µs for a tiny entry against node:zlib's 1.5-5,
    // and no node:zlib to load for an archive of small parts. It has no output cap, so only inputs
    // this small go to it: deflate expands at most 1032-fold, to 16.5 MB here, checked below.
    try {
      out = Bun.inflateSync(data as Uint8Array<ArrayBuffer>);
    } catch (error) {
      throw corrupt(error);
    }
    if (out.length > expectedSize) throw overflowError(expectedSize);
    return out;
  }
  const result = nativeInflateFor(data.length, expectedSize)?.inflate(data, expectedSize + 1);
  if (result?.kind === 'overflow') throw overflowError(expectedSize);
  if (result?.kind === 'corrupt') throw corrupt(new Error(result.reason));
  if (result) {
    if (result.output.length > expectedSize) throw overflowError(expectedSize);
    return result.output;
  }
  return decodeBounded(expectedSize, (bound) => zlib().inflateRawSync(data, bound), corrupt);
}

/**
 * Output a thread inflates through the system's zlib before it loads node:zlib: about where loading node:zlib
 * (7-13 ms) costs what its faster inflate saves (about 1 ms per MB). libdeflate, faster than both, has no budget.
 */
const NATIVE_ZLIB_BUDGET_BYTES = 8 << 20;
let nativeZlibSpent = 0;

/**
 * The system's inflate (native-inflate.ts) for an entry, else undefined: node:zlib. It takes the whole bound at once,
 * where node:zlib grows its output as it comes: entries declared past one piece go to node:zlib.
 */
function nativeInflateFor(inputSize: number, expectedSize: number): NativeInflate | undefined {
  if (inputSize > NATIVE_MAX_INPUT_BYTES || expectedSize >= ONE_PIECE_MAX_BYTES) return undefined;
  const native = nativeInflate();
  if (native?.library !== 'zlib') return native;
  if (zlibModule || nativeZlibSpent + expectedSize > NATIVE_ZLIB_BUDGET_BYTES) return undefined;
  nativeZlibSpent += expectedSize;
  return native;
}

const INFLATE_CHUNK_BYTES = 1 << 20;

/**
 * Inflates a raw deflate stream given in chunks, handing the output on as it
 * comes, so memory stays near one chunk whatever the entry's size. Stops with
 * an overflow error as soon as the output passes the declared size.
 */
export async function inflateRawStream(
  input: Iterable<Uint8Array>,
  expectedSize: number,
  onOutput: (chunk: Uint8Array) => void,
): Promise<void> {
  // Output in 1 MiB pieces: with the default 16 KiB, allocating the pieces and writing each one
  // cost more than inflating (a 24 MB entry: 1,500 buffers and writes).
  const inflater = zlib().createInflateRaw({ chunkSize: INFLATE_CHUNK_BYTES });
  await decodeThrough(inflater, {
    input,
    expectedSize,
    onOutput,
    damaged: (error) => new InflateError(`corrupt deflate data (${error.message})`, false),
    verb: 'inflates',
  });
}

/** What decodeThrough pumps, and how its faults read. */
export interface Pumped {
  input: Iterable<Uint8Array>;
  expectedSize: number;
  onOutput: (chunk: Uint8Array) => void;
  /** The decoder's error as damaged data: "corrupt deflate data (reason)". */
  damaged: (error: Error) => InflateError;
  /** How an overflow reads: "inflates to more than the declared N bytes". */
  verb: string;
}

/**
 * Pumps `input` through a node:zlib decompressor (deflate's, zstd's), handing the output on as it
 * comes, so memory stays near one chunk whatever the entry's size. Stops with an overflow error as
 * soon as the output passes the declared size.
 */
export async function decodeThrough(decoder: Zlib.Inflate | Zlib.ZstdDecompress, pumped: Pumped): Promise<void> {
  const { input, expectedSize, onOutput, damaged, verb } = pumped;
  let produced = 0;
  const finished = new Promise<void>((resolve, reject) => {
    decoder.on('data', (chunk: Buffer) => {
      produced += chunk.length;
      if (produced > expectedSize) {
        decoder.destroy();
        reject(overflowError(expectedSize, verb));
        return;
      }
      try {
        onOutput(chunk);
      } catch (error) {
        // The sink failed (a full disk): thrown from an event handler it would escape this
        // promise, which would then never settle, and the process would idle forever.
        decoder.destroy();
        reject(error);
      }
    });
    decoder.on('end', resolve);
    decoder.on('error', (error) => reject(damaged(error)));
  });
  for (const chunk of input) {
    if (!decoder.write(chunk)) await Promise.race([new Promise((resolve) => decoder.once('drain', resolve)), finished]);
    if (decoder.destroyed) break;
  }
  decoder.end();
  await finished;
}

/** Raw deflate of a whole buffer, through Bun's libdeflate binding: measured here 1.5-1.7x zlib's
 * speed at level 6 with slightly smaller output (12 MB of text: 132 against 88 MB/s), and no
 * module load (node:zlib costs a sync that deflates one edited file 10 ms). libdeflate has no
 * streaming, so files streamed in pieces go through zlib (deflateRawPiece). */
export function deflateRaw(data: Uint8Array, level: Bun.LibdeflateCompressionOptions['level'] = 6): Uint8Array {
  return Bun.deflateSync(data as Uint8Array<ArrayBuffer>, { level, library: 'libdeflate' });
}

/**
 * One piece of a raw deflate stream compressed piece by piece, so a file of
 * any size is compressed with one piece in memory. Each piece is compressed on
 * its own and ends with a full flush (byte-aligned, no block marked final), so
 * the pieces concatenate into one valid stream, as pigz does; `final` closes
 * the stream (pass an empty piece to close after the last one). Starting each
 * piece afresh costs a little ratio at the seams: nothing, for 4 MiB pieces.
 */
export function deflateRawPiece(data: Uint8Array, final: boolean, level = 6): Uint8Array {
  const module = zlib();
  return module.deflateRawSync(data, {
    level,
    finishFlush: final ? module.constants.Z_FINISH : module.constants.Z_FULL_FLUSH,
  });
}
